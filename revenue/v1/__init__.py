"""Generated protobuf modules of the revenue.v1 API (see proto/ and scripts/gen_proto.py)."""
