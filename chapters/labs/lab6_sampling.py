"""Lab 6: temperature and top-p (chapter 11). Check: chapters/labs/check.py 6"""
import numpy as np


def probabilities(logits, temperature):
    """logits: [VocabSize]; temperature > 0. Returns softmax(logits / temperature), computed
    without overflow (subtract the largest logit first)."""
    raise NotImplementedError("lab 6: write probabilities")


def top_p(probs, p):
    """probs: [VocabSize], summing to 1. Returns a list of (token id, probability), most likely
    first: the shortest prefix whose probabilities add up to at least p (at least one token),
    renormalized to sum to 1. Ties keep the lower id first."""
    raise NotImplementedError("lab 6: write top_p")
