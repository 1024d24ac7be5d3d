"""The casual-chat loaders (bench/chitchat.py) on small copies written here, in each
project's own layout: the split a corpus is read from, turns as the bench replays them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from bench import chitchat


def test_dailydialog_is_read_as_written_text_from_its_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for split, inside in chitchat.DAILYDIALOG_FILES.items():
        path = tmp_path / inside
        path.parent.mkdir(parents=True)
        said = "Let ’ s meet at the café at 5 . __eou__ I ’ ll be there , Tom ! __eou__"
        path.write_text(f"{split} : {said}\n", encoding="utf-8")
    monkeypatch.setenv(chitchat.DAILYDIALOG_ENV, str(tmp_path))
    for split in chitchat.SPLITS:
        chats, _ = chitchat.load("dailydialog", split)
        assert [c.turns for c in chats] == [
            [(f"{split}: Let’s meet at the café at 5.", "I’ll be there, Tom!")]
        ]


def test_cped_merges_a_speaker_s_lines_and_keeps_the_splits_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for split, inside in chitchat.CPED_FILES.items():
        path = tmp_path / inside
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [
            "TV_ID,Dialogue_ID,Speaker,Utterance",
            f"1,{split}_1,甲,{split}周五见",
            f"1,{split}_1,甲,别迟到",
            f"1,{split}_1,乙,好的",
        ]
        path.write_text("\ufeff" + "\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.setenv(chitchat.CPED_ENV, str(tmp_path))
    tune, _ = chitchat.load("cped", "tune")
    heldout, _ = chitchat.load("cped", "heldout")
    assert tune[0].turns == [("tune周五见别迟到", "好的")]
    assert heldout[0].turns == [("heldout周五见别迟到", "好的")]
    assert tune[0].language == "zh"
    assert chitchat.load("cped", "tune", block=1)[0] == []  # nothing past the first 400


def test_locomo_s_tuning_chats_are_the_ones_the_spec_quotes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / chitchat.LOCOMO_ARCHIVE
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as z:
        for name in ("26", "30"):
            chat = {
                "speaker_a": "A",
                "speaker_b": "B",
                "session_2": [{"speaker": "A", "text": "later"}, {"speaker": "B", "text": "ok"}],
                "session_1": [
                    {"speaker": "A", "text": f"hi {name}"},
                    {"speaker": "B", "text": "yo"},
                ],
            }
            z.writestr(f"data/multimodal_dialog/locomo10_v2/{name}.json", json.dumps(chat))
    monkeypatch.setenv(chitchat.LOCOMO_ENV, str(tmp_path))
    tune, _ = chitchat.load("locomo", "tune")
    heldout, _ = chitchat.load("locomo", "heldout")
    assert [c.id for c in tune] == ["locomo-30"] and [c.id for c in heldout] == ["locomo-26"]
    assert heldout[0].turns == [("hi 26", "yo"), ("later", "ok")]  # sessions in order


def test_kdconv_reads_each_domain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for domain in chitchat.KDCONV_DOMAINS:
        for inside in chitchat.KDCONV_FILES.values():
            path = tmp_path / inside.format(domain=domain)
            path.parent.mkdir(parents=True, exist_ok=True)
            said = [{"message": f"{domain}{i}"} for i in range(3)]
            path.write_text(json.dumps([{"messages": said, "name": domain}]), encoding="utf-8")
    monkeypatch.setenv(chitchat.KDCONV_ENV, str(tmp_path))
    chats, _ = chitchat.load("kdconv", "heldout")
    assert [c.turns for c in chats] == [[(f"{d}0", f"{d}1")] for d in chitchat.KDCONV_DOMAINS]


def test_a_missing_copy_is_said_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(chitchat.LOCOMO_ENV, raising=False)
    assert chitchat.load("locomo", "heldout") == ([], f"{chitchat.LOCOMO_ENV} is not set")
    monkeypatch.setenv(chitchat.LOCOMO_ENV, "/nonexistent/locomo")
    assert chitchat.load("locomo", "heldout")[0] == []
    with pytest.raises(ValueError):
        chitchat.load("cped", "heldout", block=1)  # further blocks are tuning data only
