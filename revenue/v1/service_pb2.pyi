from google.api import annotations_pb2 as _annotations_pb2
from revenue.v1 import replay_pb2 as _replay_pb2
from revenue.v1 import revenue_pb2 as _revenue_pb2
from revenue.v1 import steam_pb2 as _steam_pb2
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor
