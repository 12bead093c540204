"""The agent: one function made an A2A agent with `@agent`.

    a2a-serverless dev {{ cookiecutter.module_name }}.agent:echo     # http://127.0.0.1:8000

Every message creates or continues a task. What the function returns becomes the task's
artifact (the task is then `completed`); raising `InputRequired` asks the client a question,
and its next message on the same task comes back here.
"""

from __future__ import annotations

from a2a_serverless import Context, InputRequired, agent, skill


@agent(
    name={{ cookiecutter.agent_name | tojson }},
    description={{ cookiecutter.description | tojson }},
    skills=[
        skill(
            "echo",
            "Echo",
            "Says back what it is told.",
            examples=["Hello!"],
        )
    ],
)
def echo(ctx: Context) -> str:
    text = ctx.text.strip()
    if not text:
        raise InputRequired("What should I say back?")
    return f"You said: {text}"
