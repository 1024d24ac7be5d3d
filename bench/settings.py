"""The benchmark's own settings, declared once: where its PostgreSQL and its held-out
corpora are (``python -m bench``; contract §14).

Each a field of ``BenchSettings``, ``AIMIND_BENCH_<FIELD>``, on the settings base memory
and the servers use (``memory.config.settings``): typed, a default, one sentence, read as the
environment is now. A corpus variable names a local copy (a checkout, a folder or a bare
git repository): nothing is downloaded, and a benchmark without its copy is skipped,
saying which variable to set.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import AliasGenerator, SecretStr
from pydantic_settings import SettingsConfigDict

from aimind_memory.memory.config.settings import ENV_PREFIX, AIMindSettings, setting

__all__ = ["BENCH_PREFIX", "BenchSettings", "bench_settings"]

BENCH_PREFIX = ENV_PREFIX + "BENCH_"


class BenchSettings(AIMindSettings):
    """What ``python -m bench`` reads: its PostgreSQL and the corpora it measures on."""

    model_config = SettingsConfigDict(
        alias_generator=AliasGenerator(validation_alias=lambda name: BENCH_PREFIX + name.upper())
    )
    component: ClassVar[str] = "bench"

    postgres_url: SecretStr | None = setting(
        None,
        "The PostgreSQL server the benchmark makes its databases on (it needs CREATE "
        "DATABASE), instead of an embedded one it starts itself.",
        shown_default="an embedded PostgreSQL",
    )
    multiwoz: Path | None = setting(
        None, "A local copy of MultiWOZ (ConvLab-2's repository; English) for the recall benchmark."
    )
    crosswoz: Path | None = setting(
        None, "A local copy of CrossWOZ (Chinese) for the recall benchmark."
    )
    sgd: Path | None = setting(
        None,
        "A local copy of the Schema-Guided Dialogue dataset (English) for the decision-change "
        "benchmark's held-out side.",
    )
    locomo: Path | None = setting(
        None, "A local copy of LoCoMo (English) for the small-talk benchmark."
    )
    dailydialog: Path | None = setting(
        None, "A local copy of DailyDialog (English) for the small-talk benchmark."
    )
    topicalchat: Path | None = setting(
        None, "A local copy of Topical-Chat (English) for the small-talk benchmark."
    )
    cped: Path | None = setting(
        None, "A local copy of CPED (Chinese) for the small-talk benchmark."
    )
    kdconv: Path | None = setting(
        None, "A local copy of KdConv (Chinese) for the small-talk benchmark."
    )
    meld: Path | None = setting(
        None,
        "A local copy of MELD (declare-lab/MELD: Friends scenes; English) for the small-talk "
        "benchmark.",
    )
    switchboard: Path | None = setting(
        None,
        "A local copy of the Switchboard Dialog Act Corpus as plain text "
        "(NathanDuran/Switchboard-Corpus: telephone conversations; English) for the small-talk "
        "benchmark.",
    )
    c3: Path | None = setting(
        None,
        "A local copy of C3 (nlpdata/c3: its dialogues; Chinese) for the small-talk benchmark.",
    )
    diaasq: Path | None = setting(
        None,
        "A local copy of DiaASQ (unikcc/DiaASQ: Weibo reply threads; Chinese) for the "
        "small-talk benchmark.",
    )
    cmudog: Path | None = setting(
        None,
        "A local copy of CMU_DoG (festvox/datasets-CMU_DoG: chats about films; English) for "
        "the small-talk benchmark.",
    )
    mpdd: Path | None = setting(
        None,
        "A local copy of MPDD (ntunlplab/Dialogue-MPDD: TV-series scenes; Chinese) for the "
        "small-talk benchmark.",
    )
    dream: Path | None = setting(
        None,
        "A local copy of DREAM (nlpdata/dream: everyday dialogues from English listening "
        "exams; English) for the small-talk benchmark.",
    )
    xpersona: Path | None = setting(
        None,
        "A local copy of XPersona (HLTCHKUST/Xpersona: PersonaChat translated and corrected "
        "by hand; its Chinese) for the small-talk benchmark.",
    )
    selfdialogue: Path | None = setting(
        None,
        "A local copy of the Self-dialogue Corpus (jfainberg/self_dialogue_corpus: casual "
        "chats about films written by one person playing both sides; English) for the "
        "small-talk benchmark.",
    )
    dialogre: Path | None = setting(
        None,
        "A local copy of DialogRE (nlpdata/dialogre: scenes of Friends; its Chinese "
        "version) for the small-talk benchmark.",
    )
    chitchatchallenge: Path | None = setting(
        None,
        "A local copy of the Chit-Chat Challenge dataset (BYU-PCCL/chitchat-dataset, or the "
        "chitchat_dataset package unpacked: two people chatting freely; English) for the "
        "small-talk benchmark.",
    )
    rewrite: Path | None = setting(
        None,
        "A local copy of the utterance-rewriting corpus (chin-gyou/dialogue-utterance-"
        "rewriter: three-utterance chit-chat from social media; Chinese) for the small-talk "
        "benchmark.",
    )
    samsum: Path | None = setting(
        None,
        "A local copy of the SAMSum corpus (a repository holding its test split as "
        "data/samsum/test.csv, as BinWang28/LA-BART does: messenger chats between friends "
        "written by linguists; English) for the small-talk benchmark's held-out part.",
    )
    duconv: Path | None = setting(
        None,
        "A local copy of DuConv (a repository holding its dev split as duconv_data/dev.txt, "
        "as Cindy-xdZhang/dkn_duconv does: two crowd workers chatting about films and film "
        "stars; Chinese) for the small-talk benchmark's held-out part.",
    )

    def of(self, variable: str) -> Any:
        """The value of the setting ``variable`` (its environment variable's name) names."""
        field = next(f for f in type(self).model_fields if type(self).env_name(f) == variable)
        return getattr(self, field)


def bench_settings(environ: Mapping[str, str] | None = None) -> BenchSettings:
    """The benchmark's settings from ``environ`` (default: the process environment now)."""
    return BenchSettings.load(environ)
