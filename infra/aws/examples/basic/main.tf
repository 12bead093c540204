# The example agent (examples/trip_planner.py) on AWS, deployed with the infra/aws module.
#
#   scripts/package aws                  # builds build/package/aws-lambda.zip, prints its size
#   terraform init
#   terraform apply -var package_zip=../../../../build/package/aws-lambda.zip
#
# With streaming (live SSE through a function URL), build the package with uvicorn and run.sh
# (`scripts/package aws --streaming`) and give the Lambda Web Adapter layer of your region:
#
#   terraform apply -var package_zip=../../../../build/package/aws-lambda.zip -var streaming=true \
#     -var web_adapter_layer_arn=arn:aws:lambda:<region>:753240598075:layer:LambdaAdapterLayerX86:25

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
      application = "a2a-serverless"
      agent       = var.name
    }
  }
}

module "agent" {
  source = "../.."

  name        = var.name
  package_zip = var.package_zip

  # The handlers in examples/aws_lambda.py; the streaming function runs the zip's run.sh
  # (examples/aws_web_adapter.sh, as scripts/package --streaming names it), the default.
  http_handler   = "examples.aws_lambda.http"
  worker_handler = "examples.aws_lambda.worker"
  # Consumes the dead-letter queue: jobs whose worker died on every delivery fail their tasks.
  dead_letter_handler = "examples.aws_lambda.dead_letters"

  streaming             = var.streaming
  web_adapter_layer_arn = var.web_adapter_layer_arn

  push_signing_keys_ssm_parameter = var.push_signing_keys_ssm_parameter
  finished_task_ttl_s             = 30 * 24 * 3600
}
