"""The zero-run-length histogram against a plain Python reading, and a hand-worked block."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import memcomp.analysis as ma
from memcomp.analysis.zero_runs import ZeroRuns, zero_run_lengths


def plain_runs(blocks, w):
    """Every maximal run of zero words inside each block, by a loop over the words."""
    out = []
    for block in blocks:
        run = 0
        for k in range(0, len(block), w):
            if not any(block[k : k + w]):
                run += 1
            elif run:
                out.append(run)
                run = 0
        if run:
            out.append(run)
    return out


@given(
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([32, 64, 128]),
    st.lists(st.integers(0, 2), min_size=0, max_size=40 * 128),
)
def test_runs_equal_a_plain_reading(w, B, values):
    n = len(values) // B
    blocks = np.array(values[: n * B], dtype=np.uint8).reshape(n, B)
    blocks[blocks == 2] = 0  # two thirds zeros: long runs
    assert sorted(zero_run_lengths(blocks, w).tolist()) == sorted(plain_runs(blocks, w))
    df = ma.run(ZeroRuns(word_bytes=w), blocks, chunk_blocks=3)
    want = np.bincount(plain_runs(blocks, w), minlength=B // w + 1)[1:]
    np.testing.assert_array_equal(df["runs"].to_numpy(), want)
    assert df["zero_words"].sum() == sum(plain_runs(blocks, w))


def test_a_hand_worked_block():
    # 32 B = eight 4-byte words: 0 0 X 0 0 0 X 0 -> runs of 2, 3 and 1 (the last ends the block;
    # none crosses into the next block, which is all zeros: one run of 8)
    words = np.array([[0, 0, 7, 0, 0, 0, 9, 0], [0] * 8], dtype="<u4")
    df = ma.run(ZeroRuns(), words.view(np.uint8))
    runs = dict(zip(df["run_words"], df["runs"]))
    assert runs == {1: 1, 2: 1, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0, 8: 1}
    assert df["zero_words"].sum() == 14  # 6 in the first block + 8
    assert df["share_of_words"].sum() == 14 / 16
    assert df.loc[df["run_words"] == 8, "share_of_zero_words"].item() == 8 / 14
