"""The KRaft cluster id the lab formats its broker with."""

import base64

from perflab import kafka


def test_cluster_ids_are_16_random_bytes_and_never_read_as_an_option():
    ids = [kafka.cluster_id() for _ in range(5000)]  # a leading "-" is one draw in 64
    assert not [i for i in ids if i.startswith("-")]
    assert {len(base64.urlsafe_b64decode(i + "==")) for i in ids} == {16}
    assert len(set(ids)) == len(ids)
