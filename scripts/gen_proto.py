"""Regenerate the Python protobuf/gRPC modules in revenue/v1/ from proto/revenue/v1/*.proto.

Run after editing a .proto file:  python scripts/gen_proto.py
(tests/test_proto.py checks that the committed modules are up to date).
"""
from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def generate(out_dir: pathlib.Path) -> None:
    from grpc_tools import protoc
    import grpc_tools

    include = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    # google/api/annotations.proto and http.proto (the google.api.http options of service.proto) ship
    # with googleapis-common-protos, whose generated modules the service imports at run time.
    from google.api import annotations_pb2
    googleapis = pathlib.Path(annotations_pb2.__file__).parents[2]
    protos = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").rglob("*.proto"))
    args = ["protoc", f"-I{ROOT / 'proto'}", f"-I{include}", f"-I{googleapis}", f"--python_out={out_dir}",
            f"--pyi_out={out_dir}", f"--grpc_python_out={out_dir}", *protos]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")


if __name__ == "__main__":
    generate(ROOT)
    print("generated modules in revenue/v1/")
