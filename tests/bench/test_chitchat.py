"""The casual-chat loaders (bench/chitchat.py) on small copies written here, in each
project's own layout: the split a corpus is read from, turns as the bench replays them."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from bench import chitchat

MELD_TEST = "data/MELD/test_sent_emo.csv"
SWITCHBOARD_LIST = "swda_data/metadata/train_split.txt"
C3_TEST = "data/c3-d-test.json"
DIAASQ_TEST = "data/dataset/jsons_zh/test.json"


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
        # the six earlier held-out parts; the sixth is the train split's first 200, zipped
        ("seen", ["te0", "te200", "te400", "te600", "te800", "tr0"]),
    ):
        chats, _ = chitchat.load("dailydialog", split)
        # 200 dialogues a range, 50 a chat
        assert [c.turns[0][0] for c in chats[::4]] == [
            f"{first}: Let’s meet at the café at 5." for first in firsts
        ]
        assert chats[0].turns[0][1] == "I’ll be there, Tom!"
        assert len(chats) == 4 * len(firsts) and len(chats[-1].turns) == 50
    assert chitchat.load("dailydialog", "heldout") == ([], "dailydialog has no heldout part")


def test_topicalchat_is_read_by_agent_and_its_held_out_parts_are_all_seen(
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
    seen, _ = chitchat.load("topicalchat", "seen")  # the second to sixth held-out parts
    assert [c.turns[0][0] for c in seen[::4]] == [
        "test_freq0 hi there",
        "test_rare0 hi there",
        "test_freq100 hi there",
        "test_rare100 hi there",
        "test_rare200 hi there",
    ]
    assert seen[-1].turns[-1] == ("test_rare299 hi there", "yo") and seen[0].language == "en"
    assert chitchat.load("topicalchat", "heldout")[0] == []


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
    assert seen[16].turns[0] == ("t1600周五见别迟到", "好的")
    assert seen[20].turns[0] == ("t2000周五见别迟到", "好的")  # the sixth held-out part
    assert seen[-1].turns[-1] == ("t2399周五见别迟到", "好的") and len(seen) == 24
    assert heldout == []


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


def _git_repo(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    """A bare git repository holding ``files`` (the mirrors are bare), at ``tmp_path/repo.git``."""
    work = tmp_path / "work"
    for inside, content in files.items():
        path = work / inside
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    bare = tmp_path / "repo.git"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "copy"], check=True)
    subprocess.run([*git, "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


def test_meld_s_part_is_the_test_split_s_first_hundred_scenes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    header = "Sr No.,Utterance,Speaker,Emotion,Sentiment,Dialogue_ID,Utterance_ID,Season\n"
    rows = []
    for scene in range(120):
        rows += [
            f'{scene}0,"Scene {scene}, hi.",Ross,joy,positive,{scene},0,3',
            f"{scene}1,Hey.,Ross,joy,positive,{scene},1,3",
            f"{scene}2,Oh. My. God.,Janice,surprise,positive,{scene},2,3",
            f"{scene}3,We’ll see.,Chandler,neutral,neutral,{scene},3,3",
            f"{scene}4,Fine.,Ross,neutral,neutral,{scene},4,3",
        ]
    csv_text = "\ufeff" + header + "\n".join(rows) + "\n"
    monkeypatch.setenv(chitchat.MELD_ENV, str(_git_repo(tmp_path, {MELD_TEST: csv_text})))
    heldout, where = chitchat.load("meld", "seen")  # the seventh held-out part, seen now
    assert where == "meld seen (repo.git)" and len(heldout) == 4  # 100 scenes, 25 a chat
    assert heldout[0].language == "en"
    # one speaker's lines are one message; a third speaker takes the next side
    assert heldout[0].turns[:2] == [
        ("Scene 0, hi. Hey.", "Oh. My. God."),
        ("We’ll see.", "Fine."),  # each scene alone: no turn across two scenes
    ]
    assert heldout[-1].turns[-2][0] == "Scene 99, hi. Hey."
    assert not any("Scene 100," in m for c in heldout for t in c.turns for m in t)
    assert chitchat.load("meld", "tune") == ([], "meld has no tune part")
    assert chitchat.load("meld", "heldout") == ([], "meld has no heldout part")


def test_switchboard_reads_the_conversations_its_split_list_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [str(2000 + n) for n in range(130)]
    files: dict[str, str | bytes] = {SWITCHBOARD_LIST: "\n".join(ids)}
    for n in ids:
        files[f"swda_data/train/{n}.txt"] = (
            f"A|Call {n}.|sd\nA|I think we should recycle more,|sv\nB|Uh-huh.|b\nA|no stray line\n"
        )
    monkeypatch.setenv(chitchat.SWITCHBOARD_ENV, str(_git_repo(tmp_path, files)))
    heldout, _ = chitchat.load("switchboard", "seen")
    assert len(heldout) == 10 and all(len(c.turns) == 10 for c in heldout)  # 10 calls a chat
    assert heldout[0].turns[0] == ("Call 2000. I think we should recycle more,", "Uh-huh.")
    assert heldout[-1].turns[-1][0].startswith("Call 2099.")  # list lines 0-99, file order


def test_c3_takes_the_speaker_labels_off_the_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialogues = [
        [[f"男：第{n}段，周末去爬山吗？", "女：好啊。", "男：那就周六早上八点。"], [], f"{n}-1"]
        for n in range(150)
    ]
    dialogues[1][0] = ["没有标签的一句", "第二句"]  # lines with no label alternate
    copy = tmp_path / "c3"
    (copy / "data").mkdir(parents=True)
    (copy / C3_TEST).write_text(json.dumps(dialogues, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setenv(chitchat.C3_ENV, str(copy))
    heldout, _ = chitchat.load("c3", "seen")
    assert len(heldout) == 4 and heldout[0].language == "zh"
    assert heldout[0].turns[:2] == [
        ("第0段，周末去爬山吗？", "好啊。"),
        ("没有标签的一句", "第二句"),
    ]
    assert heldout[-1].turns[-1] == ("第99段，周末去爬山吗？", "好啊。")


def test_diaasq_puts_the_characters_of_a_thread_back_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads = [
        {
            "doc_id": n,
            "sentences": [
                f"我 的 第 {n} 台 黑 鲨 4 pro 很 好 用 [ 笑 cry ]",
                "真 的 吗 ?",
                "嗯 嗯",
            ],
            "speakers": [0, 1, 0],
            "replies": [-1, 0, 1],
        }
        for n in range(120)
    ]
    copy = tmp_path / "diaasq"
    (copy / DIAASQ_TEST).parent.mkdir(parents=True)
    (copy / DIAASQ_TEST).write_text(json.dumps(threads, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setenv(chitchat.DIAASQ_ENV, str(copy))
    heldout, _ = chitchat.load("diaasq", "seen")
    assert len(heldout) == 4 and heldout[0].language == "zh"
    assert heldout[0].turns[0] == ("我的第0台黑鲨4 pro很好用[笑cry]", "真的吗?")
    assert heldout[-1].turns[-1] == ("我的第99台黑鲨4 pro很好用[笑cry]", "真的吗?")


def test_cmudog_reads_the_test_split_s_files_in_name_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files: dict[str, str | bytes] = {}
    for n in range(130):
        history = [
            {"uid": "user2", "text": f"Hey, chat {n:03d}!", "docIdx": 0},
            {"uid": "user2", "text": "Seen the  movie\n yet?", "docIdx": 0},
            {"uid": "user1", "text": "Not yet.", "docIdx": 0},
            {"uid": "user1", "text": "", "docIdx": 0},
        ]
        name = f"{(n * 7919) % 1000:03x}{n:03d}"  # hashes: file-name order is not n's order
        files[f"Conversations/test/{name}.json"] = json.dumps({"history": history})
    files["Conversations/train/000.json"] = json.dumps({"history": [{"uid": "a", "text": "no"}]})
    bare = _git_repo(tmp_path, files)
    order = sorted(n for n in files if n.startswith("Conversations/test/"))
    first = [json.loads(files[n])["history"][0]["text"] for n in order[:100]]
    for copy in (bare, tmp_path / "work"):  # a bare mirror and a checkout read alike
        monkeypatch.setenv(chitchat.CMUDOG_ENV, str(copy))
        heldout, _ = chitchat.load("cmudog", "seen")  # the eighth held-out part, seen now
        assert len(heldout) == 10 and heldout[0].language == "en"  # 100 files, 10 a chat
        # one speaker's lines are one message, whitespace as written text, blanks dropped
        assert heldout[0].turns[0] == (f"{first[0]} Seen the movie yet?", "Not yet.")
        assert [t[0].split("!")[0] + "!" for c in heldout for t in c.turns] == first
    assert chitchat.load("cmudog", "heldout")[0] == [] and chitchat.load("cmudog", "tune")[0] == []


def test_mpdd_reads_its_dialogues_from_the_zip_in_file_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = {
        str(n): [
            {
                "speaker": "左母",
                "utterance": f"第{n}場，回來啦！",
                "listener": [],
                "emotion": "joy",
            },
            {"speaker": "左母", "utterance": "吃飯了。", "listener": [], "emotion": "neutral"},
            {"speaker": "左父", "utterance": "好。", "listener": [], "emotion": "neutral"},
            {"speaker": "正鵬", "utterance": "我不餓。", "listener": [], "emotion": "neutral"},
        ]
        for n in range(1, 131)
    }
    archive = tmp_path / "mpdd.zip"
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("mpdd/dialogue.json", json.dumps(cases, ensure_ascii=False))
        written.writestr("mpdd/metadata.json", "{}")
    bare = _git_repo(tmp_path, {"mpdd.zip": archive.read_bytes()})
    monkeypatch.setenv(chitchat.MPDD_ENV, str(bare))
    heldout, where = chitchat.load("mpdd", "seen")  # the eighth held-out part, seen now
    assert where == "mpdd seen (repo.git)" and len(heldout) == 4  # 100 dialogues, 25 a chat
    assert heldout[0].language == "zh"
    # one speaker's lines are one message; a third speaker's line left over at the end of a
    # dialogue is not paired with the next dialogue's
    assert heldout[0].turns[:2] == [
        ("第1場，回來啦！吃飯了。", "好。"),
        ("第2場，回來啦！吃飯了。", "好。"),
    ]
    assert all(len(c.turns) == 25 for c in heldout)
    assert heldout[-1].turns[-1] == ("第100場，回來啦！吃飯了。", "好。")
    assert not any("第101場" in m for c in heldout for t in c.turns for m in t)
    assert chitchat.load("mpdd", "heldout") == ([], "mpdd has no heldout part")


def test_dream_takes_the_speaker_labels_off_the_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = [{"question": "Q?", "choice": ["a", "b", "c"], "answer": "a"}]
    dialogues = [
        [
            [f"W: Dialogue {n}, shall we eat out?", "W: It's Friday.", "Man: Sure: at 7."],
            questions,
            f"{n}-1",
        ]
        for n in range(130)
    ]
    dialogues[1][0] = ["Woman: Dialogue 1, hi.", "no label here", "Paul: Hi!", "W: Bye."]
    copy = tmp_path / "dream"
    (copy / "data").mkdir(parents=True)
    (copy / "data/test.json").write_text(json.dumps(dialogues), encoding="utf-8")
    monkeypatch.setenv(chitchat.DREAM_ENV, str(copy))
    heldout, where = chitchat.load("dream", "seen")  # the ninth held-out part, seen now
    assert where == "dream seen (dream)" and len(heldout) == 4  # 100 dialogues, 25 a chat
    assert heldout[0].language == "en"
    # one speaker's lines are one message; a line with no label takes its place's side
    assert heldout[0].turns[:3] == [
        ("Dialogue 0, shall we eat out? It's Friday.", "Sure: at 7."),
        ("Dialogue 1, hi.", "no label here"),
        ("Hi!", "Bye."),
    ]
    assert heldout[-1].turns[-1] == ("Dialogue 99, shall we eat out? It's Friday.", "Sure: at 7.")
    assert not any("Dialogue 100," in m for c in heldout for t in c.turns for m in t)
    assert chitchat.load("dream", "tune")[0] == [] and chitchat.load("dream", "heldout")[0] == []


def test_xpersona_reads_the_chinese_test_split_s_dialogues_not_the_personas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialogues = [
        {
            "persona": ["我喜欢游泳。", "我有一只猫。"],
            "dialogue": [[f"第{n}段，你好！", "你好呀。"], ["周末干嘛？", "去游泳。"]],
        }
        for n in range(130)
    ]
    bare = _git_repo(
        tmp_path,
        {
            "dataset/Zh_persona_split_test_human_annotated.json": json.dumps(
                dialogues, ensure_ascii=False
            ),
            "dataset/Zh_persona_split_valid_human_annotated.json": "[]",
        },
    )
    monkeypatch.setenv(chitchat.XPERSONA_ENV, str(bare))
    heldout, where = chitchat.load("xpersona", "seen")  # the ninth held-out part, seen now
    assert where == "xpersona seen (repo.git)" and len(heldout) == 10  # 100, 10 a chat
    assert heldout[0].language == "zh"
    assert heldout[0].turns[:2] == [("第0段，你好！", "你好呀。"), ("周末干嘛？", "去游泳。")]
    assert all(len(c.turns) == 20 for c in heldout)
    assert heldout[-1].turns[-2] == ("第99段，你好！", "你好呀。")
    assert not any("喜欢游泳" in m for c in heldout for t in c.turns for m in t)
    assert not any("第100段" in m for c in heldout for t in c.turns for m in t)
    assert chitchat.load("xpersona", "tune")[0] == []
    assert chitchat.load("xpersona", "heldout") == ([], "xpersona has no heldout part")


def test_selfdialogue_reads_the_kept_assignments_lines_in_number_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    header = ["AssignmentId", "WorkerId", "Answer.sentence1", "Answer.sentence10"]
    header += [f"Answer.sentence{n}" for n in range(2, 10)] + ["Approve", "Reject"]
    out = io.StringIO()
    written = csv.writer(out)
    written.writerow(header)
    for n in range(130):
        lines = {f"Answer.sentence{k}": f"line {k}" for k in range(1, 11)}
        lines["Answer.sentence1"] = f"Chat {n}, seen any good films?"
        lines["Answer.sentence10"] = "Bye!"
        lines["Answer.sentence5"] = "{}" if n == 0 else "line 5"  # Turk's empty answer
        worker = "BLOCKED1" if n == 1 else f"W{n}"
        reject = "x" if n == 2 else ""
        written.writerow([f"A{n}", worker, *(lines[h] for h in header[2:-2]), "", reject])
    bare = _git_repo(
        tmp_path,
        {
            chitchat.SELFDIALOGUE_FILES["seen"][0][0]: out.getvalue(),
            "blocked_workers.txt": "BLOCKED1\n",
        },
    )
    monkeypatch.setenv(chitchat.SELFDIALOGUE_ENV, str(bare))
    heldout, where = chitchat.load("selfdialogue", "seen")  # the tenth held-out part, seen now
    assert where == "selfdialogue seen (repo.git)" and len(heldout) == 10  # 100, 10 a chat
    assert heldout[0].language == "en"
    # the two sides take turns, line by line in number order (10 after 9), "{}" left out
    assert heldout[0].turns[:3] == [
        ("Chat 0, seen any good films?", "line 2"),
        ("line 3", "line 4"),
        ("line 6", "line 7"),
    ]
    firsts = [t[0] for c in heldout for t in c.turns if t[0].startswith("Chat ")]
    # a blocked worker's and a rejected assignment are not kept: 0, 3, 4, … 101
    assert firsts[:3] == [f"Chat {n}, seen any good films?" for n in (0, 3, 4)]
    assert len(firsts) == 100 and firsts[-1] == "Chat 101, seen any good films?"
    assert heldout[1].turns[4] == ("line 9", "Bye!")
    assert chitchat.load("selfdialogue", "heldout") == ([], "selfdialogue has no heldout part")
    assert chitchat.load("selfdialogue", "tune")[0] == []


def test_dialogre_takes_the_speaker_labels_off_its_chinese_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    relation = [{"x": "菲比", "y": "50", "r": ["per:age"], "t": [""]}]
    dialogues = [
        [[f"Speaker 1: 第{n}场，嘿！", "Speaker 1: 看这个！", "Speaker 2: 哇。"], relation]
        for n in range(130)
    ]
    dialogues[1][0] = [
        "Speaker 1: 第1场，你好。",
        "Speaker 2: 嗨。",
        "Speaker 3: 我也在！",
        "Speaker 1, Speaker 2: 对！",
    ]
    bare = _git_repo(
        tmp_path,
        {
            "data_v2/cn/data/test.json": json.dumps(dialogues, ensure_ascii=False),
            "data_v2/en/data/test.json": "[]",
        },
    )
    monkeypatch.setenv(chitchat.DIALOGRE_ENV, str(bare))
    heldout, where = chitchat.load("dialogre", "seen")  # the tenth held-out part, seen now
    assert where == "dialogre seen (repo.git)" and len(heldout) == 10  # 100, 10 a chat
    assert heldout[0].language == "zh"
    # one speaker's lines are one message; a third speaker takes the next side
    assert heldout[0].turns[:3] == [
        ("第0场，嘿！看这个！", "哇。"),
        ("第1场，你好。", "嗨。"),
        ("我也在！", "对！"),
    ]
    assert heldout[-1].turns[-1] == ("第99场，嘿！看这个！", "哇。")
    assert not any("第100场" in m for c in heldout for t in c.turns for m in t)
    assert not any("per:age" in m or "菲比" in m for c in heldout for t in c.turns for m in t)
    assert chitchat.load("dialogre", "tune")[0] == []
    assert chitchat.load("dialogre", "heldout") == ([], "dialogre has no heldout part")


def test_chitchatchallenge_reads_the_first_conversations_a_turn_s_messages_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def said(text: str, sender: str) -> dict[str, str]:
        return {"text": text, "timestamp": "2018-04-19T19:57:51", "sender": sender}

    data = {
        f"uuid-{n:03d}": {
            "prompt": "What did you learn this week?",
            "ratings": {"witty": "1", "int": 5, "upbeat": 5},
            "start": "2018-04-20T01:57:41",
            "messages": [
                [said(f"Hi, chat {n}", "a")],
                [said("Hello", "b"), said("how are you", "b")],
                [said("Good", "a")],
                [said("Nice", "b")],
            ],
        }
        for n in range(130)
    }
    data["uuid-001"]["messages"] = [[said("Hi, chat 1", "a")], [said("anyone there?", "a")]]
    # a folder holding the package's file, not a mirror: the mirror may lack the large blob
    (tmp_path / "copy/chitchat_dataset").mkdir(parents=True)
    (tmp_path / "copy/chitchat_dataset/dataset.json").write_text(json.dumps(data))
    monkeypatch.setenv(chitchat.CHITCHATCHALLENGE_ENV, str(tmp_path / "copy"))
    heldout, where = chitchat.load("chitchatchallenge", "seen")  # the eleventh part, seen now
    assert where == "chitchatchallenge seen (copy)" and len(heldout) == 10  # 100, 10 a chat
    assert heldout[0].language == "en"
    # a turn's messages are one line; one sender's turns in a row are one message
    assert heldout[0].turns[:3] == [
        ("Hi, chat 0", "Hello how are you"),
        ("Good", "Nice"),
        ("Hi, chat 2", "Hello how are you"),
    ]
    assert heldout[-1].turns[-1] == ("Good", "Nice")
    assert not any("chat 100" in m or "learn" in m for c in heldout for t in c.turns for m in t)
    assert chitchat.load("chitchatchallenge", "heldout")[0] == []
    assert chitchat.load("chitchatchallenge", "tune")[0] == []


def test_rewrite_says_a_line_s_three_utterances_not_its_rewriting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"第{n}句，你看过那部电影吗\t\t看过\t\t好看吗\t\t那部电影好看吗" for n in range(130)]
    lines[1] = "第1句，明天去爬山\t\t\t\t一起吗\t\t明天一起去爬山吗"  # no second utterance
    bare = _git_repo(tmp_path, {"corpus.txt": "\n".join(lines) + "\n", "README.md": "x"})
    monkeypatch.setenv(chitchat.REWRITE_ENV, str(bare))
    heldout, where = chitchat.load("rewrite", "seen")  # the eleventh part, seen now
    assert where == "rewrite seen (repo.git)" and len(heldout) == 4  # 100, 25 a chat
    assert heldout[0].language == "zh"
    # A and B take turns; A's last line has no answer, so it is no turn; a line with one
    # speaker only is one message and no turn either
    assert heldout[0].turns[:2] == [
        ("第0句，你看过那部电影吗", "看过"),
        ("第2句，你看过那部电影吗", "看过"),
    ]
    assert sum(len(c.turns) for c in heldout) == 99
    assert heldout[-1].turns[-1] == ("第99句，你看过那部电影吗", "看过")
    said = [m for c in heldout for t in c.turns for m in t]
    assert not any("那部电影好看吗" in m or m == "好看吗" for m in said)
    assert not any("第100句" in m for c in heldout for t in c.turns for m in t)
    assert (
        chitchat.load("rewrite", "heldout")[0] == [] and chitchat.load("rewrite", "tune")[0] == []
    )


def test_samsum_reads_the_test_split_s_rows_senders_taking_sides_not_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = []
    for n in range(130):
        lines = [f"Ann: Chat {n}, pizza tonight?", "Ann: <file_gif>", "Bo: Sure: at 8", "Ann: :)"]
        rows.append([str(13800000 + n), "Ann and Bo will eat pizza at 8.", "\r\n".join(lines)])
    rows[1][2] = "Cy: Chat 1, hi all\nDee: hey\nEd: yo\nCy: bye\nstill Cy"  # three senders
    out = io.StringIO()
    written = csv.writer(out)
    written.writerow(["id", "summary", "dialogue"])
    written.writerows(rows)
    bare = _git_repo(tmp_path, {"data/samsum/test.csv": "\ufeff" + out.getvalue()})
    monkeypatch.setenv(chitchat.SAMSUM_ENV, str(bare))
    heldout, where = chitchat.load("samsum", "heldout")
    assert where == "samsum heldout (repo.git)" and len(heldout) == 4  # 100, 25 a chat
    assert heldout[0].language == "en"
    # one sender's lines are one message; a third sender takes the next side; a line with no
    # sender goes on the message before it; a last message nobody answers is no turn
    assert heldout[0].turns[:3] == [
        ("Chat 0, pizza tonight? <file_gif>", "Sure: at 8"),
        ("Chat 1, hi all", "hey"),
        ("yo", "bye still Cy"),
    ]
    assert heldout[-1].turns[-1] == ("Chat 99, pizza tonight? <file_gif>", "Sure: at 8")
    said = [m for c in heldout for t in c.turns for m in t]
    assert not any("Chat 100," in m or "pizza at 8" in m or "Ann" in m for m in said)
    assert chitchat.load("samsum", "seen")[0] == [] and chitchat.load("samsum", "tune")[0] == []


def test_duconv_reads_the_dev_split_s_conversations_not_the_goal_nor_the_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = []
    for n in range(130):
        dialogue = {
            "goal": [["START", "王牌", "林志玲"], ["林志玲", "代表作", "王牌"]],
            "knowledge": [["王牌", "导演", "范建浍"], ["林志玲", "体重", "54kg"]],
            "conversation": [
                f"第 {n} 段 ， 喜欢 看 剧情 电影 吗 ？",
                "喜欢 ， Tom Hanks 的 都 看 过 。",
                "那 推荐 你 看 2008年 上映 的 王牌 。",
                "好 的 ， 我 去 看看 。",
                "没有 人 接 的 一句",
            ],
        }
        lines.append(json.dumps(dialogue, ensure_ascii=False))
    bare = _git_repo(tmp_path, {"duconv_data/dev.txt": "\n".join(lines) + "\n"})
    monkeypatch.setenv(chitchat.DUCONV_ENV, str(bare))
    heldout, where = chitchat.load("duconv", "heldout")
    assert where == "duconv heldout (repo.git)" and len(heldout) == 10  # 100, 10 a chat
    assert heldout[0].language == "zh"
    # the tokens put back together, a space kept only between Latin words
    assert heldout[0].turns[:3] == [
        ("第0段，喜欢看剧情电影吗？", "喜欢，Tom Hanks的都看过。"),
        ("那推荐你看2008年上映的王牌。", "好的，我去看看。"),
        ("第1段，喜欢看剧情电影吗？", "喜欢，Tom Hanks的都看过。"),
    ]
    assert all(len(c.turns) == 20 for c in heldout)
    assert heldout[-1].turns[-2][0] == "第99段，喜欢看剧情电影吗？"
    said = [m for c in heldout for t in c.turns for m in t]
    assert not any("第100段" in m or "范建浍" in m or "54kg" in m or "没有人" in m for m in said)
    assert chitchat.load("duconv", "seen")[0] == [] and chitchat.load("duconv", "tune")[0] == []


def test_the_held_out_part_is_the_twelfth_two_new_corpora() -> None:
    held = {c for c in chitchat.LOADERS if c in ("samsum", "duconv")}
    assert chitchat.HELDOUT_PART == 12 and len(held) == 2
    assert {chitchat.LANGUAGE[c] for c in held} == {"en", "zh"}
    for files in (
        chitchat.DAILYDIALOG_FILES,
        chitchat.TOPICALCHAT_FILES,
        chitchat.CPED_FILES,
        chitchat.MELD_FILES,
        chitchat.SWITCHBOARD_FILES,
        chitchat.C3_FILES,
        chitchat.DIAASQ_FILES,
        chitchat.CMUDOG_FILES,
        chitchat.MPDD_FILES,
        chitchat.DREAM_FILES,
        chitchat.XPERSONA_FILES,
        chitchat.SELFDIALOGUE_FILES,
        chitchat.DIALOGRE_FILES,
        chitchat.CHITCHATCHALLENGE_FILES,
        chitchat.REWRITE_FILES,
    ):
        assert files["heldout"] == ()  # the earlier held-out parts are seen now
    for files in (chitchat.SAMSUM_FILES, chitchat.DUCONV_FILES):
        assert set(files) == {"heldout"}  # held out only: no tuning nor seen part
