"""Text analysis for the extractive compactor: sentences, words, decisions, salience, summary.

Pure functions on text, English and Chinese: sentence splitting (``sentences``),
jieba words loaded off the event loop (``segmenter``, ``words``), decision
detection with its per-language rules (``decisions``, ``decisions_en``,
``decisions_zh``), names and mentions (``names``, ``mentions``), what a turn is
worth keeping (``salience``, ``condense``) and the fact-dense summary built from
them (``summary``). No I/O at run time. It may import ``memory.limits``,
``memory.models`` and ``memory.text``; nothing here imports the rest of
compaction, storage or the service.
"""
