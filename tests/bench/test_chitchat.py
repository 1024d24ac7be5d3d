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
    said = "Let ’ s meet at the café at 5 . __eou__ I ’ ll be there , Tom ! __eou__"
    files = {inside for part in chitchat.DAILYDIALOG_FILES.values() for inside, _ in part}
    for inside in files:
        archive, zipped, member = inside.partition(chitchat.ARCHIVE_SEPARATOR)
        tag = Path(inside).stem.removeprefix("dialogues_")[:2]  # va(lidation), te(st), tr(ain)
        text = "".join(f"{tag}{i} : {said}\n" for i in range(1000))
        path = tmp_path / (archive + ".zip" if zipped else inside)
        path.parent.mkdir(parents=True, exist_ok=True)
        if zipped:  # the train split is in the mirror only zipped
            with zipfile.ZipFile(path, "w") as written:
                written.writestr(member, text)
        else:
            path.write_text(text, encoding="utf-8")
    monkeypatch.setenv(chitchat.DAILYDIALOG_ENV, str(tmp_path))
    for split, firsts in (
        ("tune", ["va0"]),
        ("seen", ["te0", "te200", "te400", "te600", "te800"]),
        ("heldout", ["tr0"]),  # the train split's first 200, read from its zip
    ):
        chats, _ = chitchat.load("dailydialog", split)
        # 200 dialogues a range, 50 a chat: the seen part is the five earlier held-out parts
        assert [c.turns[0][0] for c in chats[::4]] == [
            f"{first}: Let’s meet at the café at 5." for first in firsts
        ]
        assert chats[0].turns[0][1] == "I’ll be there, Tom!"
        assert len(chats) == 4 * len(firsts) and len(chats[-1].turns) == 50


def test_topicalchat_is_read_by_agent_and_holds_out_test_rare_s_third_hundred(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {inside for part in chitchat.TOPICALCHAT_FILES.values() for inside, _ in part}
    for inside in files:
        path = tmp_path / inside
        path.parent.mkdir(parents=True, exist_ok=True)
        conversations = {}
        for n in range(300):
            said = [("agent_1", f"{path.stem}{n} hi"), ("agent_1", "there"), ("agent_2", "yo")]
            conversations[f"t_{n}"] = {"content": [{"message": m, "agent": a} for a, m in said]}
        path.write_text(json.dumps(conversations), encoding="utf-8")
    monkeypatch.setenv(chitchat.TOPICALCHAT_ENV, str(tmp_path))
    heldout, _ = chitchat.load("topicalchat", "heldout")
    assert heldout[0].turns[0] == ("test_rare200 hi there", "yo") and heldout[0].language == "en"
    assert heldout[-1].turns[-1] == ("test_rare299 hi there", "yo") and len(heldout) == 4
    seen, _ = chitchat.load("topicalchat", "seen")  # the second to fifth held-out parts
    assert [c.turns[0][0] for c in seen[::4]] == [
        "test_freq0 hi there",
        "test_rare0 hi there",
        "test_freq100 hi there",
        "test_rare100 hi there",
    ]


def test_cped_merges_a_speaker_s_lines_and_keeps_the_splits_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for inside in {inside for part in chitchat.CPED_FILES.values() for inside, _ in part}:
        path = tmp_path / inside
        path.parent.mkdir(parents=True, exist_ok=True)
        tag = Path(inside).stem[0]  # v(alid) or t(est)
        rows = ["TV_ID,Dialogue_ID,Speaker,Utterance"]
        for d in range(2400):
            rows += [
                f"1,{tag}{d},甲,{tag}{d}周五见",
                f"1,{tag}{d},甲,别迟到",
                f"1,{tag}{d},乙,好的",
            ]
        path.write_text("\ufeff" + "\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.setenv(chitchat.CPED_ENV, str(tmp_path))
    tune, _ = chitchat.load("cped", "tune")
    seen, _ = chitchat.load("cped", "seen")
    heldout, _ = chitchat.load("cped", "heldout")
    assert tune[0].turns[0] == ("v0周五见别迟到", "好的") and tune[0].language == "zh"
    assert seen[0].turns[0] == ("t0周五见别迟到", "好的")
    assert seen[16].turns[0] == ("t1600周五见别迟到", "好的") and len(seen) == 20
    assert heldout[0].turns[0] == ("t2000周五见别迟到", "好的")
    assert heldout[-1].turns[-1] == ("t2399周五见别迟到", "好的")
    assert len(heldout) == 4  # dialogues 2000-2399, 100 a chat


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
    seen, _ = chitchat.load("locomo", "seen")
    assert [c.id for c in tune] == ["locomo-30"] and [c.id for c in seen] == ["locomo-26"]
    assert seen[0].turns == [("hi 26", "yo"), ("later", "ok")]  # sessions in order
    assert heldout == []  # all ten chats were replayed: none is held out any more


def test_kdconv_reads_each_domain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for domain in chitchat.KDCONV_DOMAINS:
        for inside in {inside for part in chitchat.KDCONV_FILES.values() for inside, _ in part}:
            path = tmp_path / inside.format(domain=domain)
            path.parent.mkdir(parents=True, exist_ok=True)
            dialogues = [
                {"messages": [{"message": f"{domain}{n}"}, {"message": "嗯"}]} for n in range(150)
            ]
            path.write_text(json.dumps(dialogues), encoding="utf-8")
    monkeypatch.setenv(chitchat.KDCONV_ENV, str(tmp_path))
    seen, _ = chitchat.load("kdconv", "seen")
    heldout, why = chitchat.load("kdconv", "heldout")
    domains = chitchat.KDCONV_DOMAINS
    starts = (0, 40, 80, 120)
    assert [c.turns[0] for c in seen] == [(f"{d}{n}", "嗯") for n in starts for d in domains]
    assert [len(c.turns) for c in seen[-3:]] == [30, 30, 30]  # dialogues 120-149 of each domain
    assert len({c.id for c in seen}) == 12  # one conversation per domain and range
    assert heldout == [] and why == "kdconv has no heldout part"  # its test split is used up


def test_a_missing_copy_is_said_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(chitchat.LOCOMO_ENV, raising=False)
    assert chitchat.load("locomo", "seen") == ([], f"{chitchat.LOCOMO_ENV} is not set")
    monkeypatch.setenv(chitchat.LOCOMO_ENV, "/nonexistent/locomo")
    assert chitchat.load("locomo", "seen")[0] == []
    with pytest.raises(ValueError):
        chitchat.load("cped", "heldout", block=1)  # further blocks are tuning data only
