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
    protos = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").rglob("*.proto"))
    args = ["protoc", f"-I{ROOT / 'proto'}", f"-I{include}", f"--python_out={out_dir}",
            f"--pyi_out={out_dir}", f"--grpc_python_out={out_dir}", *protos]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")


if __name__ == "__main__":
    generate(ROOT)
    print("generated modules in revenue/v1/")
