"""dynamodb-answers: an answer's attribute values are written from the member they have, not
by trying each of AttributeValue's ten members.

Test: TestAnswersCostLittlePerAttribute. Kind: cost.

moto writes each attribute value of an answer through its generic serializer, which asks
every one of AttributeValue's ten members (S, N, B, SS, ...) for itself in the value, each
through its attribute picker: about a tenth of a millisecond per attribute, most of what a
query or a batch read costs. Here an attribute value, and an item (a map of them), is written
from the member it has, as the generic serializer writes that member: strings as strings,
binary in base64, maps and lists member by member.
"""
from moto.core.serialize import BaseJSONSerializer

KIND = "cost"


def _string(value):
    return str(value) if value not in (None, {}, []) else value


def _attribute_value(serializer, value):
    out = {}
    for member, v in value.items():
        if v is None:
            continue
        if member in ("S", "N"):
            out[member] = _string(v)
        elif member == "B":
            out[member] = serializer._base64(v)
        elif member in ("SS", "NS"):
            out[member] = [_string(x) for x in v]
        elif member == "BS":
            out[member] = [serializer._base64(x) for x in v]
        elif member == "M":
            out[member] = _attribute_map(serializer, v)
        elif member == "L":
            out[member] = [x if x is None else _attribute_value(serializer, x) for x in v]
        elif member in ("NULL", "BOOL"):
            out[member] = v
    return out


def _attribute_map(serializer, value):
    return {k: _attribute_value(serializer, v) for k, v in value.items() if v is not None}


def _dynamodb_value(serializer, value):
    return isinstance(value, dict) and serializer.operation_model.service_model.service_name == "dynamodb"


def apply():
    json_structure = BaseJSONSerializer._serialize_type_structure
    json_map = BaseJSONSerializer._serialize_type_map

    def serialize_structure(self, serialized, value, shape, key):
        if key and shape.name == "AttributeValue" and _dynamodb_value(self, value):
            self._default_serialize(serialized, _attribute_value(self, value), shape, key)
        else:
            json_structure(self, serialized, value, shape, key)

    def serialize_map(self, serialized, value, shape, key):
        if shape.value.name == "AttributeValue" and _dynamodb_value(self, value):
            self._default_serialize(serialized, _attribute_map(self, value), shape, key)
        else:
            json_map(self, serialized, value, shape, key)

    BaseJSONSerializer._serialize_type_structure = serialize_structure
    BaseJSONSerializer._serialize_type_map = serialize_map
