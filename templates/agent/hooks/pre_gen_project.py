"""Refuse names that would make a broken project, before anything is written."""

import re
import sys

SLUG = "{{ cookiecutter.project_slug }}"
MODULE = "{{ cookiecutter.module_name }}"
CLOUD = "{{ cookiecutter.cloud }}"

problems = []
# The slug names the directory, the distribution and every cloud resource (Lambda function
# names are at most 64 characters, with "-<stage>-dead-letters" appended by serverless.yml).
if not re.fullmatch(r"[a-z][a-z0-9-]{0,38}[a-z0-9]", SLUG):
    problems.append(
        f"project_slug {SLUG!r} must be 2-40 lowercase letters, digits and '-', "
        "starting with a letter and not ending with '-'"
    )
if not re.fullmatch(r"[a-z_][a-z0-9_]*", MODULE):
    problems.append(f"module_name {MODULE!r} must be a lowercase Python identifier")
# Google Cloud service account ids get "-invoker" appended and may be 30 characters at most.
if CLOUD == "gcp" and len(SLUG) < 4:
    problems.append(f"project_slug {SLUG!r} must have at least 4 characters on Google Cloud")

if problems:
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    sys.exit(1)
