"""{{ cookiecutter.agent_name }}: {{ cookiecutter.description }}"""
