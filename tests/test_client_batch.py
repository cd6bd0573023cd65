"""reference_store.client.batch: the caller's buffers as byte views, a batch cut into frames,
and per-item errors that name their key."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from reference_store.client.batch import chunks, host_view, naming, split_small, transient
from reference_store.errors import (
    ConnectionLost,
    InvalidParams,
    ObjectNotFound,
    ProtocolError,
    RpcTimeout,
    TransferError,
)


@given(st.lists(st.integers(min_value=0, max_value=1000), max_size=40),
       st.integers(min_value=1, max_value=1500))
def test_chunks_keep_the_order_and_stay_under_the_cap(sizes: list[int], cap: int) -> None:
    idxs = list(range(len(sizes)))
    out = chunks(idxs, sizes, cap)
    assert [i for c in out for i in c] == idxs  # every object once, in order
    for c in out:
        assert c, "no empty frame"
        total = sum(sizes[i] for i in c)
        assert total <= cap or len(c) == 1  # only a single large object may exceed the cap


def test_split_small_divides_at_the_threshold() -> None:
    assert split_small([0, 1, 2, 3], [10, 64, 63, 100], 64) == ([0, 2], [1, 3])


def test_host_view_takes_bytes_arrays_and_tensors_without_a_copy() -> None:
    array = np.arange(4, dtype=np.float32)
    view = host_view(array, writable=True, field="x")
    assert view.nbytes == 16 and view.format == "B"
    view[0:4] = b"\x00\x00\x80\x3f"  # 1.0f
    assert array[0] == 1.0
    tensor = torch.zeros(3, dtype=torch.int16)
    assert host_view(tensor, writable=True, field="t").nbytes == 6
    assert bytes(host_view(b"abc", writable=False, field="b")) == b"abc"


@pytest.mark.parametrize(("value", "writable", "message"), [
    (b"abc", True, "values[2]: buffer is read-only"),
    (np.arange(8)[::2], False, "values[2]: numpy array must be C-contiguous"),
    (torch.zeros(4, 4).t(), False, "values[2]: tensor must be contiguous"),
    (3.5, False, "values[2]: expected a bytes-like object, array or tensor, got float"),
])
def test_host_view_refuses_with_one_line_naming_the_field(value: object, writable: bool,
                                                          message: str) -> None:
    with pytest.raises(InvalidParams) as err:
        host_view(value, writable=writable, field="values[2]")
    assert str(err.value) == message


def test_naming_adds_the_key_once_and_keeps_the_class() -> None:
    named = naming(ObjectNotFound("no live replica"), "k1")
    assert type(named) is ObjectNotFound and str(named) == "object 'k1': no live replica"
    assert naming(named, "k1") is named


def test_transient_means_a_node_or_network_failure_not_a_refusal() -> None:
    assert transient(RpcTimeout("slow")) and transient(ConnectionLost("gone"))
    assert transient(TransferError("copy failed"))
    assert not transient(ProtocolError("bad frame")) and not transient(None)
    assert not transient(InvalidParams("bad grant"))
