"""The care corpus's templates are data (``lucasrag_harness/evaluation/care_corpus/data/*.yaml``), and the corpus
generated from them is pinned: a SHA-256 per batch of its families and of the passages ``generate_corpus`` draws
from it. Any change to a data file (a quote, a trailing newline, a unicode apostrophe) or to the drawing fails here.

A deliberate change to the corpus updates :data:`DIGESTS`: ``python tests/harness/test_care_corpus_data.py`` prints
them as they are now."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from importlib import resources

import pytest
import yaml

import lucasrag_harness.evaluation.care_corpus as care_corpus
from lucasrag_harness.evaluation.care_corpus import _load

#: Seeds whose whole corpus is pinned (11: every caller's; 12: the determinism test's other seed).
SEEDS = (11, 12)

#: Recorded from the corpus as the Python modules ``_families*.py`` generated it, before they became data.
DIGESTS = {
    "families/batch1": "4c8fe6521418c661dd4f688e7afe0e050f0622b2d7a37e89b87bc87e20bdca0e",
    "families/batch2": "89e545585f02c52dd949a76b2ef8efb77d670f31598510da833acd3ba07868b9",
    "families/batch3": "ab20204a26889b562ce551babf806f47d70faa3a6a61fe1d3d219af6168002e6",
    "families/batch4": "b109cfcdb6832232f19295064e744db875294b844b67a24ccc6b7a54e7809a8d",
    "families/batch5": "af7a3dfd062ac4b400bbfb483518b5e72a13e3fd5bfe577427fa11506f82c795",
    "families/heldout1": "20cb65f8e1d2e65fff00ee00d9df1d8e8a8d5f7cadf05941d09e86dce896db9c",
    "families/heldout2": "b35196adda08e3e7a0d99b0655e7cfda0c4d653902389aa9861c0a37cbb40d6d",
    "families/writers1": "28684d1b053e8655944e9fb30afb7ec95c30dc2cdc88e75e06714cae70aa192a",
    "families/writers2": "5e26dc4c31a058fcbc37f54cf37ddc849ac572dc4e8612d79e6cd81f4a08051b",
    "families/heldout3": "0d98e5ec1a9d548d4cb4e9093f66d5f2e8e7a8558d360cf431c6040f64b94f39",
    "families/heldout4": "592ae908444a6a3d1d4c9891e7c6cc4024060d94dd2172ac53d9e7c7ad812e1d",
    "writers/heldout2": "43490fb0f36d669cbbe72d2142c3dbc87995f0663401fbbf79a666c9e4d04fd6",
    "writers/writers1": "372b3074b7b4ecb8deffa14beda06ed766b3e50138e5f1e158f9ea28c2ef5bd0",
    "writers/writers2": "6fac10d2713a8a484264749be6a7e20bdf9c436b82acd48e63b5d20dc5e9450e",
    "writers/heldout3": "be5c2ee57a15113f7c0dcc55decf023f926e5347d0fcd239cc94217be99a56eb",
    "writers/heldout4": "f2ac117659e78e47c37aebc72d3c200fd36a6b019f99ff3c91126cc4120d408d",
    "passages/11/batch1": "2ea0844b4cbe29635234503d4610bb53cfa356475f1b189a520d557677afb29b",
    "passages/11/batch2": "82eee911b4be60e4c8fb172de37ba118ccc93a59e1fb6d718ead9488bf28eab9",
    "passages/11/batch3": "d9d5c0e9d0f68a572bda5ceb1c076f4bc0c19f31ed0fa885be67edd5356defc0",
    "passages/11/batch4": "8314f87251d7cf39f044d7c33383cb54a038a91befd28cb1b48363cb335df3b8",
    "passages/11/batch5": "aec331cb3d37b37789f18827e644be7cbc1c63db7e74f2007b0357675d6434bd",
    "passages/11/heldout1": "bdae5bfedd8cc002ec1695bfa91a7e9444d53498ec745ea65eee222a62082a54",
    "passages/11/heldout2": "19341fbd1445a2fb3fe8777fc0a973bf8927b2c73dad85554dcea89360f0fd62",
    "passages/11/writers1": "d512c3ff047c1cd3a24cf6298c27f67ef37a29020dee3b1f3ce5a84c29248e89",
    "passages/11/writers2": "faff1182abaf89bca931c2a1ab6988b4208f056be1032ee77397109af69a0b7a",
    "passages/11/heldout3": "ec6c6770d031aa672e4fd810c6ae094a4246018b85602839ba355050dcc6fa35",
    "passages/11/heldout4": "e05337fe9144bf3f71cc78263c5cbe01af53d8853e3e1316dd2ad4bdef0f81c0",
    "corpus/11": "9c054b68538ff94a5ec2cab878cd991a162b1c05096cc3b3be622648e6744888",
    "passages/12/batch1": "a50e8c8a53510c35a3df8cf6fa3073f7021c5acd5b044c3f6af333cf7d8a141d",
    "passages/12/batch2": "3f0284dde8cd6342e4dbe102df6d0b0fafe4f97f622f42f8734e398cf0c89712",
    "passages/12/batch3": "cb6d532dc1f8a5e694dd1c9ee11e726e1e2f291c9997b3630a7918285d597735",
    "passages/12/batch4": "47a650181886e9994407f052fefff0ec347b39d7d38b2474ce6d00845a62ff03",
    "passages/12/batch5": "f477a2b1740b5cd4796a09daeab5e6f1c58269fb7ffa610022477feb97e312db",
    "passages/12/heldout1": "40d5c631cd7822646b58b544f7d9846a150ef9b89772a60ab7878f977b95437f",
    "passages/12/heldout2": "e365a60dca95baef51df5a6b99f822ff8daa6948bada5631bbf33e60c62bcfd1",
    "passages/12/writers1": "7070839c3d28aa7a11f58413a22c16f5f0945f1cca7f086529afdc7ed1287b4a",
    "passages/12/writers2": "42d322811755dce4bc93bf34dc1560faa0db53faea8a60e8ed770e616ef1aa81",
    "passages/12/heldout3": "bcaa5b398483a30842e8dbc16d6228150a0cb6c2ffe29dcca105876ac1afab1d",
    "passages/12/heldout4": "9794360ba227ff09c7ac255dbfe5250687fb87531a6f2415ab84a70d7e11f7a8",
    "corpus/12": "f79a776f719ca7de3f4bbd635d67f1b4342016206bef7119c588a7efeec24fcf",
}


def _sha(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _row(item) -> str:
    return json.dumps(dataclasses.asdict(item), sort_keys=True, ensure_ascii=False)


def _batches() -> dict[str, tuple]:
    """Every batch the package generates, by its data file's name, in drawing order."""
    named = dict(zip(("batch1", "batch2", "batch3", "batch4"), care_corpus.BATCHES, strict=True))
    named["batch5"] = care_corpus.TUNING_BATCHES[0]
    named |= {"heldout1": care_corpus.HELDOUT, "heldout2": care_corpus.HELDOUT2}
    named |= dict(zip(("writers1", "writers2"), care_corpus.WRITERS_BATCHES, strict=True))
    named |= {"heldout3": care_corpus.HELDOUT3, "heldout4": care_corpus.HELDOUT4}
    assert len(care_corpus.TUNING_BATCHES) == 1
    return named


def current_digests() -> dict[str, str]:
    batches = _batches()
    out = {}
    batch_of = {}
    for name, (charged, neutral) in batches.items():
        out[f"families/{name}"] = _sha([_row(f) for f in charged] + ["--"] + [_row(f) for f in neutral])
        batch_of |= {f.name: name for f in charged + neutral}
    for name in _load.BATCH_FILES:
        if writers := _load.load_writers(name):
            out[f"writers/{name}"] = _sha([json.dumps(writers, ensure_ascii=False)])
    for seed in SEEDS:
        passages = care_corpus.generate_corpus(seed)
        rows: dict[str, list[str]] = {name: [] for name in batches}
        for p in passages:
            rows[batch_of[p.family]].append(_row(p))
        out |= {f"passages/{seed}/{name}": _sha(rows[name]) for name in batches}
        out[f"corpus/{seed}"] = hashlib.sha256(repr(passages).encode()).hexdigest()
    return out


def test_every_batch_and_its_passages_are_byte_identical_to_the_recorded_corpus():
    now = current_digests()
    assert set(now) == set(DIGESTS)
    assert {k: v for k, v in now.items() if v != DIGESTS[k]} == {}


def test_the_package_reads_every_data_file_and_nothing_else():
    data = resources.files(care_corpus.__name__) / "data"
    assert sorted(p.name for p in data.iterdir()) == sorted(f"{name}.yaml" for name in _load.BATCH_FILES)
    assert list(_batches()) == list(_load.BATCH_FILES)  # one file per batch, in drawing order
    assert all(care_corpus.BATCHES[i] is _load.load_batch(f"batch{i + 1}") for i in range(4))


def test_libyaml_and_pure_python_safe_loading_read_the_same_data():
    for name in _load.BATCH_FILES:
        text = (resources.files(care_corpus.__name__) / "data" / f"{name}.yaml").read_text(encoding="utf-8")
        assert yaml.safe_load(text) == _load._read(name), name


def test_an_unknown_batch_is_refused():
    with pytest.raises(_load.CorpusDataError, match="no care corpus batch"):
        _load.load_batch("heldout5")


if __name__ == "__main__":
    print("DIGESTS = {")
    for key, value in current_digests().items():
        print(f'    "{key}": "{value}",')
    print("}")
