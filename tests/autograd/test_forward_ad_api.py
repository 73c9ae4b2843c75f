"""The forward-mode API against torch.autograd.forward_ad: levels, dual tensors, unpacking, printing, errors."""

import pytest


@pytest.mark.parametrize(
    "code",
    [
        "with fw.dual_level():\n    d = fw.make_dual(torch.ones(3), torch.ones(3) * 2)\n    print(d)\n"
        "    y = (d * d).sin()\n    p = fw.unpack_dual(y)\n    print(p.primal, p.tangent, type(p).__name__)\n"
        "    print(p.primal._base is y, fw.unpack_dual(torch.ones(2)))\nprint(fw.unpack_dual(y))",
        "with fw.dual_level():\n    x = torch.ones(3, requires_grad=True)\n    d = fw.make_dual(x, torch.ones(3))\n"
        "    print(d)\n    out = (d * 3).exp()\n    print(fw.unpack_dual(out).tangent)\n    out.sum().backward()\n"
        "    print(x.grad)",
        "with fw.dual_level():\n    print(fw.make_dual(torch.tensor(1.5), torch.tensor(2.)))\n"
        "    print(fw.make_dual(torch.ones(2, dtype=torch.float64), torch.ones(2)))\n"
        "    print(fw.make_dual(torch.ones(2, 2), torch.ones(2, 2)))",
        "fw.make_dual(torch.ones(3), torch.ones(3))",
        "with fw.dual_level():\n    fw.make_dual(torch.ones(3), torch.ones(2))",
        "with fw.dual_level():\n    fw.make_dual(torch.ones(3, dtype=torch.long), torch.ones(3))",
        "with fw.dual_level():\n    with fw.dual_level():\n        pass",
        "fw.enter_dual_level()\nd = fw.make_dual(torch.ones(2), torch.ones(2))\nfw.exit_dual_level()\n"
        "print(fw.unpack_dual(d).tangent)",
    ],
)
def test_forward_api_matches_torch(same, code):
    same("fw = torch.autograd.forward_ad\n" + code)
