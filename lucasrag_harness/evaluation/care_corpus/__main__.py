import json

from lucasrag_harness.evaluation.care_corpus import generate_corpus, summary

print(json.dumps(summary(generate_corpus()), indent=2))
