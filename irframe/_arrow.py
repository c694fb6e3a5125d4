"""The memory pool of the arrow buffers irframe builds: the readers' columns and the id
encodings (None without pyarrow).

It is the system allocator, not pyarrow's default pool (mimalloc): measured head to head on
the benchmark collection of docs/performance.md (run I), the first ``evaluate`` of ``str``
ids in a process and the TREC files → cube round are faster with it, and warm calls are as
fast.  Only irframe's own calls use it: other pyarrow users in the process keep
their pool.

>>> POOL is None or POOL.backend_name == "system"
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["POOL"]

try:  # optional dependency
    import pyarrow as _pa
except ImportError:  # pragma: no cover - pyarrow is optional
    POOL: Any = None
else:
    POOL = _pa.system_memory_pool()
