"""flashls: AI inline completions and code actions over LSP, on DeepSeek Flash."""

__version__ = "0.1.0"
