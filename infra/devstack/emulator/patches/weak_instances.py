"""weak-instances: moto's registry of every model instance it made holds them weakly, not for
as long as the server runs.

Test: TestMemoryStaysFlatWhileRequestsRepeat. Kind: cost (memory).

moto keeps every instance of its models (BaseModel: DynamoDB items, SQS messages, S3 keys,
...) in a list of its class, instances_tracked, read only by its /moto-api/ data view and its
reset: every item ever written, every copy a query, an update or a transaction makes, every
message and every copy of it a receive hands out, for as long as the server runs. The list
becomes one that holds them weakly.
"""
import weakref

from moto.core.common_models import BaseModel

KIND = "cost"


class _WeakInstances:
    def __init__(self, instances=()):
        self._refs = weakref.WeakValueDictionary()
        for instance in instances:
            self.append(instance)

    def append(self, instance):
        self._refs[id(instance)] = instance

    def __iter__(self):
        return iter(list(self._refs.values()))

    def __len__(self):
        return len(self._refs)


def apply():
    base_model_new = BaseModel.__new__

    def new_weakly_tracked(cls, *args, **kwargs):
        # A class's list is replaced at its first instance (and again after moto's reset,
        # which sets a new list).
        if type(cls.__dict__.get("instances_tracked")) is list:
            cls.instances_tracked = _WeakInstances(cls.instances_tracked)
        return base_model_new(cls, *args, **kwargs)

    BaseModel.__new__ = staticmethod(new_weakly_tracked)
