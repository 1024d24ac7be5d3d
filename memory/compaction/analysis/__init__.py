"""Text analysis for the extractive compactor: sentences, words, decisions, salience, summary.

Pure functions on text, English and Chinese: sentence splitting (``sentences``),
jieba words loaded off the event loop (``segmenter``, ``words``), decision
detection with its per-language rules (``decisions``, ``decisions_en``,
``decisions_zh``), names and mentions (``names``, ``mentions``), what a turn is
worth keeping (``salience``, ``condense``), the fact-dense summary built from
them (``summary``), and which later decisions replace earlier pins
(``supersession``, on what each sentence says: ``statements``, its typed values in
``values``, the words in ``change_words``, times and dates said in words read by
``timewords``). No I/O at run time. It may import ``memory.config.limits``,
``memory.models`` and ``memory.text``; nothing here imports the rest of
compaction, storage or the service.
"""
