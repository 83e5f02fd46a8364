# A student projected onto the vocabulary with the embedding matrix (tied weights, as some models
# do); this model has its own output matrix.
from mutant import mutant

forward = mutant("right/lab7_float32.py", 'W["output.weight"].T', 'W["tok_embeddings.weight"].T').forward
