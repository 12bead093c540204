# The store's database, its composite indexes and TTL policies, all derived from
# firestore.indexes.json (a copy of adapters/gcp/firestore.indexes.json, which the Firestore
# store's tests check against the queries it makes; tests/deploy checks the copy is identical).
# The file is written for the prefix "a2a"; other prefixes are substituted here.

locals {
  firestore_config = jsondecode(file("${path.module}/firestore.indexes.json"))

  collection_groups = {
    for g in distinct(concat(
      [for i in local.firestore_config.indexes : i.collectionGroup],
      [for o in local.firestore_config.fieldOverrides : o.collectionGroup],
    )) : g => "${var.collection_prefix}_${trimprefix(g, "a2a_")}"
  }

  composite_indexes = {
    for i in local.firestore_config.indexes :
    join("-", concat([i.collectionGroup], [for f in i.fields : f.fieldPath])) => i
  }

  field_overrides = {
    for o in local.firestore_config.fieldOverrides : "${o.collectionGroup}/${o.fieldPath}" => o
  }
}

resource "google_firestore_database" "store" {
  count = var.create_database ? 1 : 0

  project     = var.project_id
  name        = local.database
  location_id = coalesce(var.firestore_location, var.region)
  type        = "FIRESTORE_NATIVE"

  point_in_time_recovery_enablement = "POINT_IN_TIME_RECOVERY_ENABLED"
  delete_protection_state           = var.database_deletion_protection ? "DELETE_PROTECTION_ENABLED" : "DELETE_PROTECTION_DISABLED"
  deletion_policy                   = "ABANDON"

  depends_on = [google_project_service.api]
}

# One composite index per tasks/list filter shape.
resource "google_firestore_index" "tasks" {
  for_each = local.composite_indexes

  project     = var.project_id
  database    = local.database
  collection  = local.collection_groups[each.value.collectionGroup]
  query_scope = each.value.queryScope

  dynamic "fields" {
    for_each = each.value.fields
    content {
      field_path = fields.value.fieldPath
      order      = fields.value.order
    }
  }

  depends_on = [google_firestore_database.store]
}

# TTL policies on expireAt (every collection group the store writes) and the fields kept out
# of single-field indexing (large or never queried).
resource "google_firestore_field" "override" {
  for_each = local.field_overrides

  project    = var.project_id
  database   = local.database
  collection = local.collection_groups[each.value.collectionGroup]
  field      = each.value.fieldPath

  dynamic "ttl_config" {
    for_each = try(each.value.ttl, false) ? [true] : []
    content {}
  }

  # An empty index_config turns single-field indexing off for the field.
  index_config {
    dynamic "indexes" {
      for_each = each.value.indexes
      content {
        order        = try(indexes.value.order, null)
        array_config = try(indexes.value.arrayConfig, null)
        query_scope  = try(indexes.value.queryScope, null)
      }
    }
  }

  depends_on = [google_firestore_database.store]
}
