"""On-device and networked LLM backends behind one small Protocol (see base.py)."""
