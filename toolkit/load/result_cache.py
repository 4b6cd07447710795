"""LoadResults in the on-disk cache, as data: our protobuf schema documents plus a JSON header.

An entry is
    MAGIC, a 4-byte big-endian header length, the header (UTF-8 JSON), then the schema documents
    (`OperatorSchemaSetProto`, one per domain, `toolkit.model.codec`) back to back.
The header holds the entry's key, the file count, the document lengths, the releases, the
diagnostics and, per document, each operator's content digest without locations
(`toolkit.model.codec_digest`: what lets `opset diff` decode only the operators that differ,
`toolkit.load.result_cache_parts`). Reading decodes and checks every part; anything unexpected is a cache miss. The
key is chosen by the caller and must cover everything the result depends on (the content of the
input files, the toolkit version, the working directory that diagnostics are relative to).
"""

from __future__ import annotations

import json
import struct
from typing import Any

from toolkit.load import cache
from toolkit.load.example_files import example_budget
from toolkit.load.parallel import gc_paused
from toolkit.load.result import LoadResult
from toolkit.model.codec import schema_set_document, specset_from_schema_documents
from toolkit.model.codec_digest import NO_DIGEST, digest_without_locations, may_be_unequal_to_itself
from toolkit.model.diagnostics import Diagnostic, diagnostic_from_json, diagnostic_to_json
from toolkit.model.examples import ExampleTensor
from toolkit.model.spec import Location, OperatorSpec, Release, SpecSet

MAGIC = b"OPSETTOOLKIT-LOADRESULT\n"
FORMAT = 2  # 2: per-operator digests in the header
_LENGTH = struct.Struct(">I")


def entry_name(key: str) -> str:
    """The entry of `key`: the budget of example files is part of it, since it decides which
    examples a load reads (`toolkit.load.example_files`) and it is not in the caller's key."""
    return f"{key}-examples{example_budget()}"


def fetch(key: str) -> LoadResult | None:
    """The cached result stored under `key`, or None (absent, stale format, damaged, caching off)."""
    name = entry_name(key)
    data = cache.read_entry(name)
    if data is None:
        return None
    try:
        # Decoding allocates a few objects per spec field and frees none: the cyclic collector's
        # passes over them find nothing and, on a large catalog, take longer than the decoding.
        with gc_paused(freeze=True):
            return decode(data, name)
    except (ValueError, TypeError, KeyError, IndexError, struct.error):
        return None  # protobuf's DecodeError is a ValueError


# A result whose example tensors hold more elements than this, counted once per reference, is not
# cached. The loader reads an example file once and every reference shares its elements; an entry
# holds one copy per reference and decoding it makes one tuple per reference, so the cache would
# undo that sharing (24 references to a 16 MiB file: 3.6 GiB to store, 7 GiB to read back). Such
# a tree loads from its files instead, where the budget bounds it. 1 Mi elements: 4 MiB of float32.
MAX_CACHED_EXAMPLE_ELEMENTS = 1 << 20


def store(key: str, result: LoadResult) -> None:
    """Cache `result` under `key`, unless its entry would be larger than the cache's cap (the
    encoding stops there: a small tree can encode to a large entry, `codec.DocumentTooLarge`)."""
    if not cache.enabled() or example_elements(result.specs) > MAX_CACHED_EXAMPLE_ELEMENTS:
        return
    name = entry_name(key)
    try:
        data = encode(result, name, max_bytes=cache.max_bytes())
    except (ValueError, TypeError, KeyError):
        return  # too large, or a value the encoding cannot hold: just not cached
    cache.write_entry(name, data)


def example_elements(specs: SpecSet) -> int:
    """The elements of every example tensor of `specs`, once per reference."""
    total = 0
    for operator in specs.operators:
        for version in operator.versions:
            for example in version.examples:
                tensors = [*example.inputs, *example.outputs, *(a.value for a in example.attributes)]
                total += sum(len(t.data) for t in tensors if isinstance(t, ExampleTensor))
    return total


def encode(result: LoadResult, key: str, *, max_bytes: int | None = None) -> bytes:
    """The entry of `result`; DocumentTooLarge as soon as its documents pass `max_bytes`."""
    by_domain: dict[str, list[OperatorSpec]] = {d.name: [] for d in result.specs.domains}
    for operator in result.specs.operators:
        by_domain[operator.domain].append(operator)  # KeyError: a domain that was not loaded
    documents: list[bytes] = []
    digests: list[list[str]] = []
    size = 0
    for domain in result.specs.domains:
        operators = by_domain[domain.name]
        left = None if max_bytes is None else max_bytes - size
        document = schema_set_document(domain, operators, max_bytes=left)
        documents.append(document.SerializeToString(deterministic=True))
        size += len(documents[-1])
        # after serialising: the digests clear the document's locations
        digests.append(
            [
                NO_DIGEST if may_be_unequal_to_itself(spec) else digest_without_locations(message)
                for spec, message in zip(operators, document.operators, strict=True)
            ]
        )
    header = {
        "format": FORMAT,
        "key": key,
        "files": result.files,
        "documents": [len(d) for d in documents],
        "digests": digests,
        "releases": [_release_json(r) for r in result.specs.releases],
        "diagnostics": [diagnostic_to_json(d) for d in result.diagnostics],
    }
    head = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode()
    return b"".join([MAGIC, _LENGTH.pack(len(head)), head, *documents])


def split(data: bytes, key: str) -> tuple[dict[str, Any], list[bytes]]:
    """The checked header of an entry and its schema documents (still serialised)."""
    if not data.startswith(MAGIC):
        raise ValueError("not a cached load result")
    offset = len(MAGIC)
    (size,) = _LENGTH.unpack_from(data, offset)
    offset += _LENGTH.size
    header = json.loads(data[offset : offset + size].decode())
    offset += size
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key:
        raise ValueError("stale or foreign cache entry")
    documents = []
    for length in _list(header["documents"]):
        end = offset + _int(length)
        if end > len(data):
            raise ValueError("truncated cache entry")
        documents.append(data[offset:end])
        offset = end
    if offset != len(data):
        raise ValueError("trailing bytes in cache entry")
    return header, documents


def decode(data: bytes, key: str) -> LoadResult:
    header, documents = split(data, key)
    loaded = specset_from_schema_documents(documents)
    specs = SpecSet(domains=loaded.domains, operators=loaded.operators, releases=header_releases(header))
    return LoadResult(specs, header_diagnostics(header), _int(header["files"]))


def header_releases(header: dict[str, Any]) -> tuple[Release, ...]:
    return tuple(_release(r) for r in _list(header["releases"]))


def header_diagnostics(header: dict[str, Any]) -> list[Diagnostic]:
    return [diagnostic_from_json(d) for d in _list(header["diagnostics"])]


# -- JSON parts ------------------------------------------------------------------------------


def _location_json(location: Location) -> list[object]:
    return [location.file, location.line, location.column]


def _location(value: object) -> Location:
    file, line, column = _list(value)
    return Location(_str(file), _int(line), _int(column))


def _release_json(release: Release) -> dict[str, object]:
    return {
        "name": release.name,
        "ir_version": release.ir_version,
        "opsets": [[domain, version] for domain, version in release.opsets],
        "location": _location_json(release.location),
        "doc": release.doc,
    }


def _release(value: object) -> Release:
    if not isinstance(value, dict):
        raise TypeError("release")
    opsets = []
    for pair in _list(value["opsets"]):
        domain, version = _list(pair)
        opsets.append((_str(domain), _int(version)))
    return Release(
        name=_str(value["name"]),
        ir_version=_int(value["ir_version"]),
        opsets=tuple(opsets),
        location=_location(value["location"]),
        doc=_str(value["doc"]),
    )


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError("expected a list")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("expected an integer")
    return value
