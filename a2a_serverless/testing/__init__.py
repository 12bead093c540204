"""Test helpers shipped with the kit, for adapter distributions and applications."""
