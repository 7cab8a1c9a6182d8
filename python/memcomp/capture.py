"""Memory dumps from a running PyTorch model: its weights and the activations its layers produce,
as they sit in memory (each tensor's bytes in order), written as a dump directory that
:func:`memcomp.open_dumps` reads with one dataset per tensor and its provenance.

    from memcomp import capture
    path = capture.torch_model(model, inputs, "dumps/resnet")   # weights + per-layer activations
    datasets = memcomp.open_dumps(path, block_bytes=32)
    memcomp.mpc.train(np.concatenate([d.blocks for d in datasets]))

The directory holds one ``.bin`` file per tensor and ``manifest.json``: for every dataset its
``name`` (``weight:<parameter>`` or ``activation:<module>``), ``file``, ``kind``, ``dtype``,
``shape``, ``nbytes`` and the module type, plus the model class, the input shapes, torch and
memcomp versions. Tensors on another device are copied to the host here, explicitly, by ``.cpu()``
(that is the capture); nothing else is converted: a bfloat16 tensor is written as its bfloat16 bytes.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
from typing import Any, Dict, List, Optional, Sequence, Union

from ._version import __version__

__all__ = ["torch_model"]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "root"


def _tensor_bytes(t) -> bytes:
    """The bytes of a tensor as it sits in (host) memory, C order."""
    import torch

    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.contiguous()
    # view as raw bytes without a dtype conversion (bfloat16 and friends included)
    return t.view(torch.uint8).numpy().tobytes() if t.numel() else b""


def torch_model(
    model,
    inputs: Union[Any, Sequence[Any]],
    out_dir: Union[str, os.PathLike],
    *,
    weights: bool = True,
    activations: bool = True,
    modules: Optional[Sequence[str]] = None,
) -> pathlib.Path:
    """Runs ``model(*inputs)`` once under ``torch.no_grad()`` and writes a dump directory.

    ``weights``: every parameter and buffer (``model.state_dict()`` order). ``activations``: the
    output tensor of every leaf module (or of the named ``modules``), recorded by forward hooks;
    tuple outputs give one dataset per tensor element. Returns the directory."""
    try:
        import torch
    except ImportError:
        raise ImportError("capture.torch_model needs PyTorch: pip install memcomp[capture]") from None
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    args = tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries: List[Dict[str, Any]] = []
    used = set()

    def write(name: str, kind: str, t, module_type: str) -> None:
        data = _tensor_bytes(t)
        stem = _safe(f"{kind}-{name}")
        while stem in used:
            stem += "_"
        used.add(stem)
        (out / f"{stem}.bin").write_bytes(data)
        entries.append(
            {
                "name": f"{kind}:{name}",
                "file": f"{stem}.bin",
                "kind": kind,
                "dtype": str(t.dtype).replace("torch.", ""),
                "shape": list(t.shape),
                "nbytes": len(data),
                "module": module_type,
            }
        )

    if weights:
        for name, t in model.state_dict().items():
            if torch.is_tensor(t):
                write(name, "weight", t, "parameter")
    handles = []
    if activations:
        named = dict(model.named_modules())
        if modules is not None:
            missing = [m for m in modules if m not in named]
            if missing:
                raise ValueError(f"no module named {missing[0]!r}; the model has {sorted(named)[:10]}...")
            chosen = {m: named[m] for m in modules}
        else:
            chosen = {n: m for n, m in named.items() if n and not list(m.children())}
        order: List[Any] = []

        def hook(mod_name: str, mod_type: str):
            def record(_module, _inp, output):
                outs = output if isinstance(output, (tuple, list)) else (output,)
                for k, o in enumerate(outs):
                    if torch.is_tensor(o):
                        order.append((mod_name if len(outs) == 1 else f"{mod_name}[{k}]", o.detach().clone(), mod_type))

            return record

        for n, m in chosen.items():
            handles.append(m.register_forward_hook(hook(n, type(m).__name__)))
    try:
        with torch.no_grad():
            model(*args)
    finally:
        for h in handles:
            h.remove()
    if activations:
        for name, t, mod_type in order:
            write(name, "activation", t, mod_type)
    manifest = {
        "format": "memcomp.capture/1",
        "memcomp_version": __version__,
        "torch_version": torch.__version__,
        "model": type(model).__name__,
        "inputs": [list(a.shape) if torch.is_tensor(a) else type(a).__name__ for a in args],
        "datasets": entries,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return out
