"""Dump formats (memcomp.io): raw, .npy traces, .npz, safetensors, ONNX initializers, directories
and globs, custom readers, provenance; in-memory DLPack tensors; the PyTorch capture helper."""

import json
import struct

import numpy as np
import pytest

import memcomp
from memcomp import io as mio


def write_safetensors(path, tensors):
    head, data, off = {"__metadata__": {"format": "pt"}}, b"", 0
    for k, v in tensors.items():
        head[k] = {
            "dtype": {np.float32: "F32", np.int8: "I8"}[v.dtype.type],
            "shape": list(v.shape),
            "data_offsets": [off, off + v.nbytes],
        }
        data += v.tobytes()
        off += v.nbytes
    h = json.dumps(head).encode()
    path.write_bytes(struct.pack("<Q", len(h)) + h + data)
    return 8 + len(h)


def test_safetensors_one_dataset_per_tensor_mapped_in_file_order(tmp_path):
    w = np.arange(64, dtype=np.float32).reshape(8, 8)
    b = np.ones(3, np.float32)  # 12 bytes: under one block
    q = np.arange(-64, 64, dtype=np.int8)
    base = write_safetensors(tmp_path / "m.safetensors", {"layer.weight": w, "layer.bias": b, "q": q})
    ds = memcomp.open_dumps(tmp_path / "m.safetensors", block_bytes=32)
    assert [d.name for d in ds] == ["layer.weight", "layer.bias", "q"]
    assert np.array_equal(ds[0].blocks.reshape(-1), w.view(np.uint8).reshape(-1))
    assert ds[1].n_blocks == 0 and ds[1].dropped_bytes == 12
    assert np.array_equal(ds[2].blocks.reshape(-1), q.view(np.uint8))
    assert ds[0].provenance() == {
        "dataset": "layer.weight",
        "file": str(tmp_path / "m.safetensors"),
        "format": "safetensors",
        "offset_begin": base,
        "offset_end": base + 256,
        "block_bytes": 32,
    }
    assert not ds[0].blocks.flags.writeable


@pytest.mark.parametrize(
    "content, match",
    [
        (b"\x01", "header length"),
        (struct.pack("<Q", 10**9) + b"{}", "exceeds"),
        (struct.pack("<Q", 2) + b"{x", "not valid JSON"),
        (struct.pack("<Q", 2) + b"[]", "JSON object"),
        (struct.pack("<Q", 32) + b'{"t": {"data_offsets": [0, 99]}}', "outside"),
    ],
)
def test_malformed_safetensors_raise(tmp_path, content, match):
    p = tmp_path / "bad.safetensors"
    p.write_bytes(content)
    with pytest.raises(ValueError, match=match):
        memcomp.open_dumps(p, block_bytes=32)


def test_npy_traces_name_their_line_size_and_npz_members(tmp_path):
    trace = np.random.default_rng(0).integers(0, 256, (100, 32), dtype=np.uint8)
    np.save(tmp_path / "trace.npy", trace)
    (d,) = memcomp.open_dumps(tmp_path / "trace.npy")  # (N, L) uint8: L-byte lines
    assert d.block_bytes == 32 and np.array_equal(d.blocks, trace)
    assert len(memcomp.open_dumps(tmp_path / "trace.npy", tmp_path / "trace.npy")) == 2
    np.save(tmp_path / "f.npy", np.zeros(16, np.float32))
    with pytest.raises(ValueError, match="block_bytes"):  # not a trace: say the block size
        memcomp.open_dumps(tmp_path / "f.npy")
    np.savez(tmp_path / "a.npz", x=np.arange(16, dtype=np.int32), y=np.ones(8, np.float64))
    ds = memcomp.open_dumps(tmp_path / "a.npz", block_bytes=16)
    assert [d.name for d in ds] == ["a.npz:x", "a.npz:y"] and [d.n_blocks for d in ds] == [4, 4]


def test_directories_globs_and_custom_readers(tmp_path):
    (tmp_path / "k").mkdir()
    for i in range(3):
        memcomp.save_dump(tmp_path / "k" / f"kernel{i}.bin", np.full(64 * (i + 1), i, np.uint8))
    ds = memcomp.open_dumps(tmp_path / "k", block_bytes=32)
    assert [d.name for d in ds] == ["kernel0.bin", "kernel1.bin", "kernel2.bin"] and [len(d) for d in ds] == [2, 4, 6]
    ds2 = memcomp.open_dumps(str(tmp_path / "k" / "kernel[12].bin"), block_bytes=32)
    assert [d.name for d in ds2] == ["kernel1.bin", "kernel2.bin"]
    with pytest.raises(FileNotFoundError, match="no such dump"):
        memcomp.open_dumps(str(tmp_path / "k" / "*.nope"), block_bytes=32)

    def halves(path, block_bytes, allow_partial):  # a reader that splits a file in two datasets
        data = path.read_bytes()
        h = len(data) // 2
        return [
            mio.dump_from_bytes(data[:h], block_bytes, path=path, name=f"{path.stem}:a", format="halves"),
            mio.dump_from_bytes(data[h:], block_bytes, path=path, name=f"{path.stem}:b", format="halves", offset=h),
        ]

    memcomp.register_reader(".halves", halves)
    memcomp.save_dump(tmp_path / "x.halves", np.arange(128, dtype=np.uint8))
    a, b = memcomp.open_dumps(tmp_path / "x.halves", block_bytes=32)
    assert (a.name, b.name, b.offset, b.format) == ("x:a", "x:b", 64, "halves")
    assert b.blocks[0, 0] == 64
    with pytest.raises(ValueError, match="suffix"):
        memcomp.register_reader("bin", halves)


def test_onnx_initializers(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    w = np.arange(32, dtype=np.float32).reshape(4, 8)
    node = helper.make_node("MatMul", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 8])],
        initializer=[numpy_helper.from_array(w, "w")],
    )
    onnx.save(helper.make_model(graph), str(tmp_path / "m.onnx"))
    (d,) = memcomp.open_dumps(tmp_path / "m.onnx", block_bytes=32)
    assert d.name == "w" and d.format == "onnx" and np.array_equal(d.blocks.reshape(-1), w.view(np.uint8).reshape(-1))


def test_compare_rows_carry_the_dumps_provenance(tmp_path):
    memcomp.save_dump(tmp_path / "d.bin", memcomp.workloads.sample_dump(1 << 14))
    d = memcomp.open_dump(tmp_path / "d.bin", 64, offset=1024, length=4096)
    df = memcomp.compare(d, ["bdi", "fpc"])
    assert (df["dataset"] == "d.bin").all() and (df["file"] == str(tmp_path / "d.bin")).all()
    assert (df["offset_begin"] == 1024).all() and (df["offset_end"] == 1024 + 4096).all()
    assert (df["blocks"] == 64).all()


def test_torch_tensors_and_capture(tmp_path):
    torch = pytest.importorskip("torch")
    from memcomp import capture

    t = torch.arange(64, dtype=torch.float32)
    b = memcomp.as_blocks(t, 32)
    assert np.array_equal(b.reshape(-1), t.numpy().view(np.uint8)) and np.shares_memory(b, t.numpy())
    with pytest.raises(TypeError, match="torch.int16"):
        memcomp.as_blocks(torch.zeros(16, dtype=torch.bfloat16), 32)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8 * 6 * 6, 16)
    )
    x = torch.randn(4, 3, 8, 8)
    path = capture.torch_model(model, x, tmp_path / "cap")
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["model"] == "Sequential" and manifest["inputs"] == [[4, 3, 8, 8]]
    names = [e["name"] for e in manifest["datasets"]]
    assert names[:4] == ["weight:0.weight", "weight:0.bias", "weight:3.weight", "weight:3.bias"]
    assert names[4:] == ["activation:0", "activation:1", "activation:2", "activation:3"]
    ds = memcomp.open_dumps(path, block_bytes=32)
    assert [d.name for d in ds] == names
    conv = model[0].weight.detach().numpy()
    assert np.array_equal(
        np.concatenate([ds[0].blocks.reshape(-1), np.zeros(0, np.uint8)])[: ds[0].nbytes],
        conv.view(np.uint8).reshape(-1)[: ds[0].nbytes],
    )
    relu = model[1](model[0](x)).detach().numpy()
    assert np.array_equal(ds[5].blocks.reshape(-1), relu.view(np.uint8).reshape(-1)[: ds[5].nbytes])
    blocks = np.concatenate([d.blocks for d in ds])
    m = memcomp.mpc.train(blocks)  # "train MPC on captured dumps" on a real network
    assert m.codec().measure(blocks).cr() > 1.0
    with pytest.raises(ValueError, match="no module named"):
        capture.torch_model(model, x, tmp_path / "c2", modules=["nope"])
    only = capture.torch_model(model, x, tmp_path / "c3", weights=False, modules=["1"])
    assert [d.name for d in memcomp.open_dumps(only, block_bytes=32)] == ["activation:1"]
