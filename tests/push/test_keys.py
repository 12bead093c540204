"""Signing keys: configuration, the JWKS, rotation, the `keys generate` command, lazy imports."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import jwt
import pytest

from a2a_serverless import Settings
from a2a_serverless.cli import keys_main
from a2a_serverless.push import (
    KeyRing,
    PushNotConfigured,
    generate_key,
    generate_keys_json,
    push_available,
)
from a2a_serverless.push.keys import PRIVATE_MEMBERS, parse_signing_keys
from a2a_serverless.push.signing import JwtSigner


@pytest.fixture(scope="module")
def rsa_key() -> dict[str, Any]:
    return generate_key("RS256")


def test_generated_keys_are_private_jwks_with_kid_alg_iat(rsa_key: dict[str, Any]) -> None:
    ec_key = generate_key()
    assert ec_key["kty"] == "EC" and ec_key["crv"] == "P-256" and ec_key["alg"] == "ES256"
    assert rsa_key["kty"] == "RSA" and rsa_key["alg"] == "RS256"
    for key in (ec_key, rsa_key):
        assert key["d"] and key["kid"] and isinstance(key["iat"], int) and key["use"] == "sig"
    assert generate_key()["kid"] != ec_key["kid"]
    with pytest.raises(ValueError, match="unsupported"):
        generate_key("HS256")


def test_the_newest_key_signs_and_all_are_published(rsa_key: dict[str, Any]) -> None:
    old = {**generate_key(), "iat": 1_000}
    new = {**rsa_key, "iat": 2_000}
    ring = KeyRing(parse_signing_keys(json.dumps([new, old])))
    assert ring.current.kid == new["kid"]
    document = ring.jwks()
    assert [k["kid"] for k in document["keys"]] == [new["kid"], old["kid"]]
    for public in document["keys"]:
        assert not PRIVATE_MEMBERS & public.keys()
        assert public["use"] == "sig" and public["alg"] in ("ES256", "RS256")
    token, _ = JwtSigner(ring).sign(b"{}", "https://r.example/", "t1")
    assert jwt.get_unverified_header(token)["kid"] == new["kid"]
    assert jwt.get_unverified_header(token)["alg"] == "RS256"


def test_signatures_verify_with_the_published_keys() -> None:
    ring = KeyRing(parse_signing_keys(json.dumps([generate_key()])))
    token, jti = JwtSigner(ring, issuer="https://agent", ttl_s=60).sign(
        b'{"id":"t"}', "https://r.example/hook", "t", notification_id="n-1", seq=4
    )
    public = jwt.PyJWK(ring.jwks()["keys"][0])
    claims = jwt.decode(token, public.key, algorithms=["ES256"], audience="https://r.example/hook")
    assert claims["iss"] == "https://agent" and claims["jti"] == jti
    assert claims["exp"] - claims["iat"] == 60
    assert claims["taskId"] == "t" and claims["notificationId"] == "n-1" and claims["seq"] == 4
    assert claims["bodySha256"] == claims["request_body_sha256"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("not json", "not valid JSON"),
        ("[]", "non-empty"),
        ('[{"kty": "EC"}]', 'no "kid"'),
        ('[{"kid": "a", "alg": "HS256", "kty": "oct", "iat": 1, "k": "x"}]', "alg"),
        ('[{"kid": "a", "alg": "ES256", "kty": "RSA", "iat": 1, "d": "x"}]', "kty"),
        (
            '[{"kid": "a", "alg": "ES256", "kty": "EC", "crv": "P-384", "iat": 1, "d": "x"}]',
            "P-256",
        ),
        ('[{"kid": "a", "alg": "ES256", "kty": "EC", "crv": "P-256", "d": "x"}]', "iat"),
        ('[{"kid": "a", "alg": "ES256", "kty": "EC", "crv": "P-256", "iat": 1}]', "public key"),
    ],
)
def test_malformed_key_configuration_fails_loudly(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        push_available(Settings(push_signing_keys=value))


def test_duplicate_kids_are_refused() -> None:
    key = generate_key()
    with pytest.raises(ValueError, match="same"):
        parse_signing_keys(json.dumps([key, key]))


def test_unloadable_key_material_is_reported() -> None:
    key = {**generate_key(), "d": "AAAA"}
    ring = KeyRing(parse_signing_keys(json.dumps([key])))
    with pytest.raises(ValueError, match="cannot be loaded"):
        ring.validate()


def test_push_availability() -> None:
    keys = json.dumps([generate_key()])
    assert push_available(Settings(push_signing_keys=keys)) is True
    assert push_available(Settings(dev_mode=True)) is True
    assert push_available(Settings(dev_mode=False)) is False
    with pytest.raises(PushNotConfigured, match="A2A_PUSH_SIGNING_KEYS"):
        KeyRing.from_settings(Settings(dev_mode=False))


def test_dev_mode_without_keys_uses_an_ephemeral_key(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="a2a_serverless.push"):
        ring = KeyRing.from_settings(Settings(dev_mode=True))
    assert ring.ephemeral and ring.current.alg == "ES256"
    assert "ephemeral" in caplog.text


def test_keys_from_the_environment() -> None:
    keys = json.dumps([generate_key()])
    settings = Settings.from_env({"A2A_PUSH_SIGNING_KEYS": keys, "A2A_DEV_MODE": "false"})
    assert KeyRing.from_settings(settings).current.kid == json.loads(keys)[0]["kid"]


def test_keys_from_a_mounted_secret_file(tmp_path: Path) -> None:
    key = generate_key()
    secret = tmp_path / "push-keys.json"
    secret.write_text(json.dumps([key]))
    settings = Settings(push_signing_keys=f"file:{secret}")
    assert push_available(settings)
    assert KeyRing.from_settings(settings).current.kid == key["kid"]
    with pytest.raises(ValueError, match="cannot read"):
        push_available(Settings(push_signing_keys=f"file:{tmp_path / 'missing.json'}"))


def test_generate_keys_json_adds_a_newer_key_for_rotation() -> None:
    first = generate_keys_json()
    rotated = generate_keys_json("ES256", existing=first)
    keys = json.loads(rotated)
    assert len(keys) == 2 and keys[0] == json.loads(first)[0]
    ring = KeyRing(parse_signing_keys(rotated))
    assert ring.current.kid == keys[1]["kid"]
    with pytest.raises(ValueError):
        generate_keys_json(existing="[]")


def test_keys_generate_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert keys_main(["generate"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert len(printed) == 1 and printed[0]["alg"] == "ES256"
    existing = tmp_path / "keys.json"
    existing.write_text(json.dumps(printed))
    assert keys_main(["generate", "--add-to", str(existing)]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    existing.write_text("nonsense")
    assert keys_main(["generate", "--add-to", str(existing)]) == 1
    assert "not valid JSON" in capsys.readouterr().err


def test_importing_the_package_imports_no_jwt_cryptography_or_httpx() -> None:
    code = (
        "import sys, json\n"
        "import a2a_serverless.push as p\n"
        "from a2a_serverless.push import PushNotifier, WebhookVerifier, UrlGuard, push_available\n"
        "from a2a_serverless.push import KeyRing, WEBHOOK_JOB\n"
        "from a2a_serverless import Settings\n"
        "import a2a_serverless.webhook_receiver, a2a_serverless.push.delivery\n"
        "print(json.dumps([m for m in ('jwt', 'cryptography', 'httpx') if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
