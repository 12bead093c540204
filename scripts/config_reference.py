"""Write docs/configuration.md from the code, so the reference cannot drift from it.

    .venv/bin/python scripts/config_reference.py          # rewrite docs/configuration.md
    .venv/bin/python scripts/config_reference.py --check  # exit 1 if it is out of date

Sources, read (not imported for their text):
- `a2a_serverless.config.Settings` and `a2a_serverless_aws.config.AwsSettings`: every field,
  its default, and the comment lines written just above it (a ``# --- title ---`` comment
  starts a new group);
- the `A2A_AUTH_*` table in the docstring of `a2a_serverless/auth/config.py`;
- the ``- A2A_...`` lists in the docstrings of `a2a_serverless_gcp/config.py` and of
  `a2a_serverless/client/auth.py` (the client's credentials).
tests/docs/test_config_reference.py runs the check.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "configuration.md"
CORE = ROOT / "a2a_serverless" / "config.py"
AUTH = ROOT / "a2a_serverless" / "auth" / "config.py"
AWS = ROOT / "adapters" / "aws" / "a2a_serverless_aws" / "config.py"
GCP = ROOT / "adapters" / "gcp" / "a2a_serverless_gcp" / "config.py"
CLIENT = ROOT / "a2a_serverless" / "client" / "auth.py"

HEADER = """# Configuration reference

Every setting is an environment variable (what a Lambda function or a Cloud Function is
configured with); the core's are also fields of `a2a_serverless.Settings` for code that builds
an app itself. Unknown or malformed values fail at start-up, not in a request, and so do
numbers out of range (a negative timeout, a limit of zero), with an error naming the variable.
An `A2A_*` variable that nothing reads (a typo, say `A2A_STORE_ULR`) is logged as a warning at
start-up, naming the closest setting.

This page is generated from the code by `scripts/config_reference.py`; the test suite fails when
it is out of date, so what you read here is what the code does.
"""


@dataclasses.dataclass
class Row:
    name: str
    default: str
    meaning: str


def dataclass_rows(path: Path, class_name: str, cls: type) -> list[tuple[str, list[Row]]]:
    """(group title, rows) for each field of `cls`, with the comments above it in `path`."""
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == class_name)
    defaults = {f.name: _default(f) for f in dataclasses.fields(cls)}
    groups: list[tuple[str, list[Row]]] = [("", [])]
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        name = statement.target.id
        comments: list[str] = []
        index = statement.lineno - 2
        while index >= 0 and lines[index].strip().startswith("#"):
            comments.insert(0, lines[index].strip().lstrip("#").strip())
            index -= 1
        titles = [c for c in comments if c.startswith("---")]
        if titles:
            title = re.sub(r"\s*\(.*\)", "", titles[-1].strip("- ").strip())
            groups.append((title[0].upper() + title[1:], []))
            comments = comments[comments.index(titles[-1]) + 1 :]
        # One comment may describe several fields in a row: the later ones point back to it.
        meaning = " ".join(comments) or "(see the row above)"
        groups[-1][1].append(Row(f"A2A_{name.upper()}", defaults[name], meaning))
    return [(title, rows) for title, rows in groups if rows]


def auth_meanings() -> dict[str, str]:
    """A2A_AUTH_* name -> its description, from the auth config module's docstring table."""
    docstring = ast.get_docstring(ast.parse(AUTH.read_text())) or ""
    meanings: dict[str, str] = {}
    current: str | None = None
    for line in docstring.splitlines():
        match = re.match(r"\s{4}(A2A_AUTH_\w+)\s+(.*)", line)
        if match:
            current = match[1]
            meanings[current] = match[2].strip()
        elif current and line.startswith(" " * 8) and line.strip():
            meanings[current] += " " + line.strip()
        else:
            current = None
    return meanings


def docstring_rows(path: Path) -> list[Row]:
    """The ``- A2A_NAME (default): meaning`` list of a module's docstring."""
    docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
    rows: list[Row] = []
    for item in re.split(r"\n(?=- )", docstring):
        if not item.startswith("- A2A_"):
            continue
        item = item.split("\n\n")[0]  # a paragraph after the list is not part of its last item
        text = " ".join(part.strip() for part in item[2:].splitlines())
        names, _, meaning = text.partition(": ")
        default = ""
        found = re.search(r"\(([^)]*)\)\s*$", names)
        if found:
            names = names[: found.start()].strip()
            if found[1].startswith("else"):
                meaning = f"{meaning} ({found[1]})"
            else:
                default = found[1]
        rows.append(Row(names.strip(), default, meaning.strip()))
    return rows


def render() -> str:
    sys.path[:0] = [str(ROOT), str(ROOT / "adapters" / "aws")]
    from a2a_serverless.config import Settings
    from a2a_serverless_aws.config import AwsSettings

    out = [HEADER]
    out.append("## The core (`a2a_serverless.Settings`)\n")
    auth = auth_meanings()
    for title, rows in dataclass_rows(CORE, "Settings", Settings):
        for row in rows:
            row.meaning = auth.get(row.name, row.meaning)
        out.append(_table(title, rows))
    out.append("## The AWS adapter (`a2a_serverless_aws.AwsSettings`)\n")
    out.append(
        "Read by the Lambda handlers besides the core's settings; the timing rules between them "
        "are in `adapters/aws/README.md`.\n"
    )
    for title, rows in dataclass_rows(AWS, "AwsSettings", AwsSettings):
        out.append(_table(title, rows))
    out.append("## The Google Cloud adapter (`a2a_serverless_gcp.GcpSettings`)\n")
    out.append("Read by the functions-framework entry points besides the core's settings.\n")
    out.append(_table("", docstring_rows(GCP)))
    out.append("## The client (`a2a_serverless.client`, `a2a-serverless call`, `card`, `check`)\n")
    out.append(
        "Credentials for calling other agents (docs/client.md), read when a client is made with "
        "`CredentialOptions.from_env()` and by the commands; each secret may also be a "
        "reference: `env:NAME`, `file:PATH`, `ssm:NAME`, `secretsmanager:ID`.\n"
    )
    out.append(_table("", docstring_rows(CLIENT)))
    return "\n".join(out)


def _table(title: str, rows: list[Row]) -> str:
    head = f"### {title}\n\n" if title else ""
    body = "\n".join(
        f"| `{r.name}` | {r.default} | {r.meaning.replace('|', '&#124;')} |" for r in rows
    )
    return f"{head}| variable | default | meaning |\n| --- | --- | --- |\n{body}\n"


def _default(f: dataclasses.Field[Any]) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return "required"
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return f"`{value}`"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run scripts/config_reference.py")
            return 1
        return 0
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
