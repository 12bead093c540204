# {{ cookiecutter.agent_name }} on AWS: the kit's infra/aws module (API Gateway HTTP API, the
# HTTP, worker and dead-letter Lambda functions, SQS with a dead-letter queue, DynamoDB).
#
#   python package.py                      # build/lambda.zip (from the project directory)
#   terraform -chdir=infra init
#   terraform -chdir=infra apply

terraform {
  required_version = ">= 1.9"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
  }
}

provider "aws" {
  region = var.region

  default_tags {
    tags = {
      application = "{{ cookiecutter.project_slug }}"
    }
  }
}

module "agent" {
  # Where the kit's module comes from: a path to an a2a-serverless checkout's infra/aws, or a
  # git URL such as "git::https://<host>/<owner>/a2a-serverless.git//infra/aws?ref=<tag>".
  source = "{{ cookiecutter.terraform_module_source }}"

  name        = var.name
  package_zip = var.package_zip

  # The handlers of {{ cookiecutter.module_name }}/aws_lambda.py.
  http_handler        = "{{ cookiecutter.module_name }}.aws_lambda.http"
  worker_handler      = "{{ cookiecutter.module_name }}.aws_lambda.worker"
  dead_letter_handler = "{{ cookiecutter.module_name }}.aws_lambda.dead_letters"

  push_signing_keys_ssm_parameter = var.push_signing_keys_ssm_parameter
  # Callers send an API key (X-API-Key), read at start-up from this SSM SecureString
  # ("KEY=SUBJECT,..."; null: "/<name>/api-keys"). public = true would let anyone call the
  # agent: an explicit choice, see the kit's docs/security.md.
  api_keys_ssm_parameter = var.api_keys_ssm_parameter
  finished_task_ttl_s    = 30 * 24 * 3600
  environment            = var.environment
}
