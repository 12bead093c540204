# The content bucket: parts of tasks too large for a table item (a2a_serverless.store.content,
# a2a_serverless_aws.s3content). Objects are written once under fresh keys and read by key;
# when a task finishes, its objects are copied onto themselves with the tag a2a-expiring=true,
# which restarts their age, and the lifecycle rule below removes them a day after the task's
# TTL. Private (public access blocked, bucket-owner objects, TLS only), encrypted, versioned
# (what a write overwrites or deletes is kept a day).

locals {
  # Whole days past finished_task_ttl_s, plus one; with no TTL, tasks and their content stay.
  content_expiry_days = var.finished_task_ttl_s == null ? null : ceil(var.finished_task_ttl_s / 86400) + 1
}

resource "aws_s3_bucket" "content" {
  #checkov:skip=CKV_AWS_18:objects are read and written only by the functions' roles, which CloudTrail records; access logs would need a second bucket
  #checkov:skip=CKV_AWS_144:task content lives as long as its task; cross-region replication is a disaster-recovery choice for the operator
  #checkov:skip=CKV2_AWS_62:nothing consumes object events: the store reads objects by the keys its items hold
  bucket_prefix = "${lower(var.name)}-content-"
  force_destroy = false
  tags          = var.tags
}

resource "aws_s3_bucket_public_access_block" "content" {
  bucket                  = aws_s3_bucket.content.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "content" {
  bucket = aws_s3_bucket.content.id
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

# SSE-S3, or the module's customer managed key when kms_key_arn is given (S3 Bucket Keys keep
# its KMS requests few).
resource "aws_s3_bucket_server_side_encryption_configuration" "content" {
  bucket = aws_s3_bucket.content.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = var.kms_key_arn == null ? "AES256" : "aws:kms"
      kms_master_key_id = var.kms_key_arn
    }
    bucket_key_enabled = var.kms_key_arn != null
  }
}

resource "aws_s3_bucket_versioning" "content" {
  bucket = aws_s3_bucket.content.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "content" {
  #checkov:skip=CKV_AWS_300:the noncurrent-versions rule aborts incomplete multipart uploads after a day; the finished-task rule filters on a tag, which S3 does not allow with that action
  bucket = aws_s3_bucket.content.id

  dynamic "rule" {
    for_each = local.content_expiry_days == null ? [] : [local.content_expiry_days]
    content {
      id     = "finished-task-content"
      status = "Enabled"
      filter {
        tag {
          key   = "a2a-expiring"
          value = "true"
        }
      }
      expiration {
        days = rule.value
      }
    }
  }

  rule {
    id     = "noncurrent-versions"
    status = "Enabled"
    filter {}
    noncurrent_version_expiration {
      noncurrent_days = 1
    }
    expiration {
      expired_object_delete_marker = true
    }
    abort_incomplete_multipart_upload {
      days_after_initiation = 1
    }
  }

  depends_on = [aws_s3_bucket_versioning.content]
}

resource "aws_s3_bucket_policy" "content" {
  bucket = aws_s3_bucket.content.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "TlsOnly"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = [aws_s3_bucket.content.arn, "${aws_s3_bucket.content.arn}/*"]
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
  depends_on = [aws_s3_bucket_public_access_block.content]
}
