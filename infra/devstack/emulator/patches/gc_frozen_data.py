"""gc-frozen-data: after a full pass of Python's cycle collector what the server holds is
frozen, so the next full pass walks what came since, not every object of the data held.

Test: TestFullCollectionsWalkWhatCameSince. Kind: cost.

Python's cycle collector walks every object it tracks in a full pass, which it makes each
time the long-lived objects have grown by a quarter: with a table's items held (a dict of
DynamoType objects each), the server stopped for 0.4 s at 2.5 million objects and for
seconds beside a 10,000-customer import, every request waiting. Once a full pass has walked
more than FREEZE_AT objects, what survived it is frozen (gc.freeze): later passes walk the
objects made since, at most about that many. Frozen objects are still freed when their last
reference goes (a replaced or deleted item); only a reference cycle alive at a freeze (an
answer being built) and dropped later stays, which is why the server freezes once per
FREEZE_AT new objects and not after every pass.
"""
import gc

KIND = "cost"

FREEZE_AT = 300_000


def _freeze_after_full_pass(phase, info):
    if phase == "stop" and info["generation"] == 2 and len(gc.get_objects(generation=2)) > FREEZE_AT:
        gc.freeze()


def apply():
    gc.callbacks.append(_freeze_after_full_pass)
