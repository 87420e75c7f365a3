"""QLoRA-shaped base layers without bitsandbytes (which needs a GPU).

Every nn.Linear inside the decoder blocks becomes a frozen layer that stores what bitsandbytes'
Linear4bit stores for NF4 with double quantization (Dettmers et al. 2023): 4-bit codes packed two per
byte, one 8-bit absmax per 64 weights and one FP32 second-level scale per 256 absmax values. In the
forward and backward passes it materialises the BF16 weight, as bitsandbytes' dequantize_4bit does,
and keeps only the packed codes for backward (MatMul4Bit saves the quantization state, not the
dequantized weight). Only shapes and bytes matter here: under FakeTensorMode no value is computed.
"""

import torch
from torch import nn

BLOCK = 64
BLOCK2 = 256


def _dequantize(layer):
    # bitsandbytes writes the dequantized weight into a fresh BF16 buffer of the full shape.
    return torch.empty((layer.out_features, layer.in_features), dtype=torch.bfloat16, device=layer.weight.device)


class _MatMulNf4(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, layer):
        ctx.layer = layer
        w = _dequantize(layer)
        return x @ w.t()

    @staticmethod
    def backward(ctx, grad):
        w = _dequantize(ctx.layer)
        return grad @ w, None


class Nf4ShapedLinear(nn.Linear):
    """A frozen linear layer with NF4 storage (codes + absmax + second-level scales). It is an
    nn.Linear for peft's dispatch (as bitsandbytes' Linear4bit is), but never allocates the dense
    weight: nn.Linear.__init__ is skipped."""

    def __init__(self, linear):
        nn.Module.__init__(self)
        self.in_features = linear.in_features
        self.out_features = linear.out_features
        n = self.in_features * self.out_features
        device = linear.weight.device
        # Same layout as bitsandbytes' Params4bit: uint8 [n/2, 1].
        self.weight = nn.Parameter(torch.empty((n // 2, 1), dtype=torch.uint8, device=device), requires_grad=False)
        blocks = -(-n // BLOCK)
        self.register_buffer("absmax", torch.empty(blocks, dtype=torch.uint8, device=device))
        self.register_buffer("absmax2", torch.empty(-(-blocks // BLOCK2), dtype=torch.float32, device=device))
        self.bias = None
        if linear.bias is not None:
            self.bias = nn.Parameter(linear.bias.detach().to(torch.bfloat16), requires_grad=False)

    def forward(self, x):
        y = _MatMulNf4.apply(x.to(torch.bfloat16), self)
        return y + self.bias if self.bias is not None else y


def quantize_linears_nf4_shaped(model):
    """Replaces every nn.Linear except the output head with an Nf4ShapedLinear."""
    head = model.get_output_embeddings()
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, nn.Linear) and child is not head:
                setattr(module, child_name, Nf4ShapedLinear(child))
    return model
