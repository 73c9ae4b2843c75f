"""ndgrad's own words: the hints after PyTorch's unchanged error messages, explain()'s and graph.path()'s sentences,
one entry per text with English and Chinese side by side (set_hint_language). A hint follows a blank line, so the
text before it is exactly torch's and code that matches torch's messages still matches."""

from ndgrad.autograd.provenance import (
    Site,
    capture,
    is_provenance_enabled,
    last_write_of,
    origin_of,
    recent_cuts,
    site_of,
)

__all__ = [
    "set_hint_language", "get_hint_language", "set_hints_enabled", "are_hints_enabled", "say", "sentences", "place",
    "with_hint", "without_hint", "inplace_hint", "add_backward_hint", "cut_hint", "cut_lines", "recent_cut_lines",
]

PREFIXES = {"en": "ndgrad hint: ", "zh": "ndgrad 提示："}


class _Settings:
    language = "en"
    enabled = True


def set_hint_language(language):
    """Write hints and explain() in ``'en'`` (the default) or ``'zh'``."""
    if language not in PREFIXES:
        raise ValueError(f"hint language must be one of {', '.join(map(repr, PREFIXES))}, but got {language!r}")
    _Settings.language = language


def get_hint_language():
    return _Settings.language


def set_hints_enabled(mode):
    """Add (default) or leave out ndgrad's hints after PyTorch's error messages."""
    _Settings.enabled = bool(mode)


def are_hints_enabled():
    return _Settings.enabled


# fmt: off
TEXTS = {
    # ---- the in-place error ----------------------------------------------------------------------------------
    "inplace": {
        "en": "{node} saved a tensor for backward, and it was changed in place before backward used it.\n"
              "  saved at     {saved}\n"
              "  modified at  {modified}\n",
        "zh": "{node} 为反向传播保存了一个张量，但在反向传播用到它之前，它被原地操作（in-place）修改了。\n"
              "  保存于  {saved}\n"
              "  修改于  {modified}\n",
    },
    "inplace_fix": {
        "en": "Fix: make that change out of place (`y = y * 2` instead of `y *= 2` or `y.mul_(2)`), or change a "
              "copy (`y = y.clone()` first) so that the saved values stay intact.",
        "zh": "修正：把这次修改改成非原地操作（用 `y = y * 2` 代替 `y *= 2` 或 `y.mul_(2)`），或者先复制一份再修改"
              "（先写 `y = y.clone()`），让保存的值保持不变。",
    },
    "inplace_fix_step": {
        "en": "Fix: the optimizer's step changed the parameters after this graph was built, so what it saved is "
              "stale. Build a new graph in each iteration: do not carry a tensor with history across steps (keep a "
              "logged loss as loss.item(), detach carried state: h = h.detach()); retain_graph=True does not help.",
        "zh": "修正：这个计算图建立之后，优化器的 step 修改了参数，图中保存的值已经过时。每次迭代都应重新建立计算图："
              "不要让带有计算历史的张量跨越 step（记录损失时用 loss.item()，要延续的状态先 detach：h = h.detach()）；"
              "retain_graph=True 无济于事。",
    },
    # ---- the graph-leak warning (ndgrad.autograd.leaks) --------------------------------------------------------
    "leak": {
        "en": "ndgrad: this backward reaches nodes made before the last optimizer step{step}: a tensor that carries "
              "its graph from one iteration into the next makes every backward slower, keeps the old graphs in "
              "memory and sends gradients into past iterations (retain_graph=True does not fix this: it only keeps "
              "the old graph alive).",
        "zh": "ndgrad：这次反向传播到达了上一次优化器 step{step}之前建立的节点：一个张量把它的计算图从一次迭代"
              "带进了下一次，这会让每次反向传播变慢、让旧的计算图一直占用内存，并把梯度送回过去的迭代"
              "（retain_graph=True 解决不了这个问题：它只会让旧的计算图继续存在）。",
    },
    "leak_in_place": {
        "en": "ndgrad: {line} extends in place a graph built before the last optimizer step{step}: through this "
              "tensor every iteration's graph stays alive, saved tensors included, whether or not it is ever "
              "backpropagated.",
        "zh": "ndgrad：{line} 原地扩展了一个在上一次优化器 step{step}之前建立的计算图：通过这个张量，每次迭代的"
              "计算图（包括保存的张量）都会一直留在内存中，无论之后是否对它做反向传播。",
    },
    "leak_this_op": {"en": "this in-place op", "zh": "这个原地操作"},
    "leak_carrier": {
        "en": "The history is carried across by {newest}",
        "zh": "把计算历史带过来的是 {newest}",
    },
    "leak_oldest": {
        "en": "; the oldest node reached was made by {oldest}",
        "zh": "；到达的最早节点由 {oldest} 创建",
    },
    "full_stop": {"en": ".", "zh": "。"},
    "leak_total": {
        "en": "To keep a running total for logging, add the number instead: {total} += {term}.item()",
        "zh": "如果只是为了记录而累加总和，请改为累加数值：{total} += {term}.item()",
    },
    "leak_store": {
        "en": "To keep the value for logging, store the number instead: {target} = {term}.item()",
        "zh": "如果只是为了记录而保存这个值，请改为保存数值：{target} = {term}.item()",
    },
    "leak_state": {
        "en": "If {variable} is carried into the next iteration (an RNN's hidden state), cut its history there: "
              "{variable} = {variable}.detach(). A value kept only for logging should be kept as a number: "
              "{variable}.item().",
        "zh": "如果 {variable} 要带到下一次迭代（例如 RNN 的隐藏状态），请在那里切断它的计算历史："
              "{variable} = {variable}.detach()。只用于记录的值请保存为数值：{variable}.item()。",
    },
    "leak_generic": {
        "en": "Keep a logged loss as loss.item() (or loss.detach()), and detach state carried into the next "
              "iteration: h = h.detach().",
        "zh": "记录损失时请用 loss.item()（或 loss.detach()），并把要带到下一次迭代的状态 detach：h = h.detach()。",
    },
    # ---- the second-backward error --------------------------------------------------------------------------
    "freed": {
        "en": "the backward at {first} already freed the values saved by {node}, made at {made}.",
        "zh": "{first} 处的反向传播已经释放了 {node} 保存的中间值；{node} 创建于 {made}。",
    },
    "freed_earlier": {
        "en": "an earlier backward already freed the values saved by {node}, made at {made}.",
        "zh": "之前的一次反向传播已经释放了 {node} 保存的中间值；{node} 创建于 {made}。",
    },
    "freed_loop": {
        "en": "Both backward calls ran this line, so a loop reuses a graph built in an earlier iteration.",
        "zh": "两次反向传播都在这一行调用，说明循环在复用之前某次迭代建立的计算图。",
    },
    "freed_maybe_loop": {
        "en": "In a loop, this usually means that the loop reuses a graph built in an earlier iteration.",
        "zh": "在循环中，这通常说明循环在复用之前某次迭代建立的计算图。",
    },
    "freed_carried": {
        "en": "Look for a tensor made before the loop, or carried from one iteration to the next (a hidden state, "
              "a running total). Fix: compute it inside the loop, or cut it at the start of each iteration "
              "(`h = h.detach()`). retain_graph=True is usually the wrong fix: every backward would run through all "
              "earlier iterations again, and the graph and its memory would keep growing.",
        "zh": "请找出在循环之前就算好、或者从一次迭代带到下一次的张量（例如隐藏状态、累加的总和）。修正：在循环内"
              "重新计算它，或在每次迭代开始时把它从计算图中分离（`h = h.detach()`）。retain_graph=True 通常不是"
              "正确的修正：那样每次反向传播都会重新穿过之前所有的迭代，计算图和它占用的内存会不断增长。",
    },
    "freed_shared": {
        "en": "Two backward passes share this part of the graph. Fix: add the losses and call backward once "
              "(`(loss1 + loss2).backward()`); pass retain_graph=True to the first backward only when the second "
              "really must run on its own. In a loop, retain_graph=True is usually the wrong fix: detach what "
              "one iteration hands to the next instead.",
        "zh": "两次反向传播共用了这部分计算图。修正：把损失相加后只调用一次反向传播（`(loss1 + loss2).backward()`）；"
              "只有当第二次确实必须单独进行时，才在第一次反向传播时传入 retain_graph=True。在循环中，"
              "retain_graph=True 通常不是正确的修正：应当把一次迭代传给下一次的张量 detach()。",
    },
    # ---- where a tensor left the graph (the "does not require grad" hint and explain) ----------------------
    "no_grad": {
        "en": "this tensor was computed with gradient recording off (inside {mode}()) at {place}, so nothing "
              "recorded how it was made. Compute it outside that block.",
        "zh": "这个张量是在关闭梯度记录时（{mode}() 内）于 {place} 计算的，因此没有记录它是怎样得到的。"
              "请在该代码块之外计算它。",
    },
    "detached": {
        "en": "this tensor was cut out of the graph by detach() at {place}. Use the tensor itself where gradients "
              "must flow; detach only what should stay constant.",
        "zh": "这个张量在 {place} 通过 detach() 脱离了计算图。需要梯度流过的地方请直接使用原张量，"
              "只对应当保持为常量的部分调用 detach()。",
    },
    "data": {
        "en": "this tensor is the .data of a tensor that requires grad, taken at {place}: .data is outside the "
              "graph. Use the tensor itself (or detach() where a constant is meant).",
        "zh": "这个张量是在 {place} 取出的 .data，而 .data 不在计算图中。请直接使用原张量（需要常量时用 detach()）。",
    },
    "integer_cast": {
        "en": "this tensor was converted to {dtype} at {place}; only floating-point and complex tensors can "
              "carry gradients.",
        "zh": "这个张量在 {place} 被转换成了 {dtype}；只有浮点和复数张量才能携带梯度。",
    },
    "computed_without_grad": {
        "en": "it was computed from tensors that do not require grad.",
        "zh": "它是由不需要梯度的张量计算出来的。",
    },
    "recent_cuts": {
        "en": "The latest places where a tensor that required grad left the graph:",
        "zh": "最近几处需要梯度的张量离开计算图的位置：",
    },
    "nothing_required": {
        "en": "no tensor that required grad was seen leaving the graph, so most likely none of the tensors it was "
              "computed from requires grad. Create the tensors you want gradients for with requires_grad=True "
              "(nn.Parameter does this for a model's weights).",
        "zh": "没有发现需要梯度的张量离开计算图，所以很可能计算它所用的张量都不需要梯度。请用 requires_grad=True "
              "创建需要求梯度的张量（nn.Parameter 会为模型的权重自动设置）。",
    },
    "cut.line": {"en": "  {how}: {place}", "zh": "  {how}：{place}"},
    "cut.detach": {"en": "detach()", "zh": "detach()"},
    "cut.data": {"en": ".data", "zh": ".data"},
    "cut.no_grad": {"en": "under no_grad()", "zh": "在 no_grad() 内"},
    "cut.inference_mode": {"en": "under inference_mode()", "zh": "在 inference_mode() 内"},
    "cut.integer cast": {"en": "cast to an integer dtype", "zh": "转换为整数类型"},
    "cut.item": {"en": ".item() (a Python number has no graph)", "zh": ".item()（Python 数字没有计算图）"},
    "not_recorded": {"en": "(not recorded)", "zh": "（未记录）"},
    # ---- explain() ------------------------------------------------------------------------------------------
    "explain.leaf": {"en": "{name}: {dtype} {shape}, a leaf{requires}",
                     "zh": "{name}：{dtype} {shape}，叶子节点{requires}"},
    "explain.requires": {"en": " that requires grad", "zh": "，需要梯度"},
    "explain.no_requires": {"en": " that does not require grad", "zh": "，不需要梯度"},
    "explain.made": {"en": "{name}: {dtype} {shape}, made by {node} at {place}",
                     "zh": "{name}：{dtype} {shape}，由 {node} 创建于 {place}"},
    "has_grad": {
        "en": ".grad holds a gradient: a backward reached this tensor.",
        "zh": ".grad 中已有梯度：反向传播到达过这个张量。",
    },
    "non_leaf": {
        "en": "it is the result of an op, not a leaf: backward fills .grad only for leaves (reading it warns). Call "
              "{name}.retain_grad() before backward to keep its gradient, or read .grad on the leaf it came from.",
        "zh": "它是运算的结果，不是叶子节点：反向传播只为叶子节点填写 .grad（读取时会给出警告）。要保留它的梯度，"
              "请在反向传播之前调用 {name}.retain_grad()，或者读取它所来自的叶子节点的 .grad。",
    },
    "same_line_leaf": {
        "en": "The leaf made on that same line is the one that requires grad; this tensor is computed from it. To "
              "make the result itself the leaf, compute first and ask for grad afterwards: "
              "`w = (torch.randn(3) * 0.01).requires_grad_()`.",
        "zh": "同一行上创建的叶子节点才是需要梯度的那个；这个张量是由它计算出来的。要让结果本身成为叶子节点，"
              "请先计算、再要求梯度：`w = (torch.randn(3) * 0.01).requires_grad_()`。",
    },
    "rebound": {
        "en": "`{source}` gave the name `{name}` to a new tensor; the name belonged to {leaf}, and that leaf, not "
              "this tensor, receives the gradient. Keep the leaf under its own name, or apply the change before "
              "requires_grad_().",
        "zh": "`{source}` 把名字 `{name}` 给了一个新张量；这个名字原本属于{leaf}，接收梯度的是那个叶子节点，"
              "而不是这个张量。请让叶子节点保留自己的名字，或者在调用 requires_grad_() 之前完成这次变换。",
    },
    "rebound.leaf": {"en": "the leaf made at {place}", "zh": "在 {place} 创建的叶子节点"},
    "rebound.earlier": {"en": "an earlier tensor", "zh": "之前的一个张量"},
    "integer_dtype": {
        "en": "its dtype is {dtype}: only floating-point and complex tensors can require grad.",
        "zh": "它的类型是 {dtype}：只有浮点和复数张量才能要求梯度。",
    },
    "never_required": {
        "en": "it is a leaf created without requires_grad=True (or computed only from such tensors), so no graph "
              "records it. Create it with requires_grad=True, or call .requires_grad_() before using it.",
        "zh": "它是创建时没有设置 requires_grad=True 的叶子节点（或只由这类张量计算得到），因此计算图没有记录它。"
              "请用 requires_grad=True 创建它，或在使用之前调用 .requires_grad_()。",
    },
    "no_backward_yet": {
        "en": "its .grad is None until a backward reaches it (zero_grad() also resets it to None). Pass the loss, "
              "explain(x, loss), to check that the loss depends on it.",
        "zh": "在反向传播到达它之前，.grad 一直是 None（zero_grad() 也会把它重置为 None）。传入损失 explain(x, loss) "
              "可以检查损失是否依赖于它。",
    },
    "reachable": {
        "en": "the loss reaches it through {count} nodes (ndgrad.autograd.graph.path(loss, x) prints them): .grad "
              "is set once loss.backward() runs.",
        "zh": "损失经过 {count} 个节点可以到达它（ndgrad.autograd.graph.path(loss, x) 会打印这些节点）："
              "调用 loss.backward() 之后 .grad 就会被填写。",
    },
    "unreachable": {
        "en": "the loss does not depend on it: no chain of grad_fn nodes leads from the loss to it, so backward "
              "never reaches it. The loss reaches these leaves:",
        "zh": "损失不依赖于它：从损失出发，没有一条 grad_fn 链能到达它，所以反向传播不会到达它。"
              "损失能到达的叶子节点有：",
    },
    "unreachable.none": {"en": "  (no leaf that requires grad)", "zh": "  （没有需要梯度的叶子节点）"},
    "unreachable.same_name": {
        "en": "The loss uses another tensor named `{name}`, made at {place}: the loss was computed from that one, "
              "not from this one.",
        "zh": "损失使用的是另一个名为 `{name}` 的张量（创建于 {place}）：损失是由那个张量计算的，而不是这个。",
    },
    "loss_without_graph": {
        "en": "the loss itself does not require grad, so backward from it reaches nothing. For the loss:",
        "zh": "损失本身不需要梯度，因此从它出发的反向传播到达不了任何张量。关于损失：",
    },
    # ---- graph.path ------------------------------------------------------------------------------------------
    "path.head": {"en": "{a} -> {b}: {count} nodes", "zh": "{a} -> {b}：{count} 个节点"},
    "path.each": {"en": "path {index} of {total}: {count} nodes",
                  "zh": "第 {index} 条路径（共 {total} 条）：{count} 个节点"},
    "path.more": {"en": "(stopped after {shown} paths)", "zh": "（只列出了前 {shown} 条路径）"},
    "path.none": {
        "en": "no path from {a} to {b}: backward from {a} never reaches {b}.",
        "zh": "从 {a} 到 {b} 没有路径：从 {a} 开始的反向传播不会到达 {b}。",
    },
    "path.no_graph": {
        "en": "no path: {tensor} does not require grad, so it is in no graph.",
        "zh": "没有路径：{tensor} 不需要梯度，所以它不在任何计算图中。",
    },
}
# fmt: on


def say(key, **fields):
    """The text ``key`` in the current language, with ``fields`` filled in."""
    return TEXTS[key][_Settings.language].format(**fields)


def sentences(*texts):
    """Sentences run on: after a space in English, directly in Chinese."""
    return ("" if _Settings.language == "zh" else " ").join(texts)


def place(site):
    """``file.py:12 (`the line's source`)`` for a Site, or the words for a place nobody recorded."""
    if site is None:
        return say("not_recorded")
    source = site.source
    return f"{site.short()} (`{source}`)" if source else site.short()


def with_hint(message, hint):
    """``message`` (torch's, unchanged), then a blank line and the hint; the message alone when hints are off."""
    if not _Settings.enabled or not hint:
        return message
    return f"{message}\n\n{PREFIXES[_Settings.language]}{hint}"


def without_hint(message):
    """The part of an error message that is torch's (what comes before a hint in any language)."""
    for prefix in PREFIXES.values():
        message = message.split(f"\n\n{prefix}", 1)[0]
    return message


# ---- the hints after errors --------------------------------------------------------------------------------------
def inplace_hint(tensor, node):
    """Which op saved ``tensor``, on which line, and which line wrote into it afterwards."""
    from ndgrad.autograd.leaks import last_step_site  # leaks imports the graph, which imports this module

    write = last_write_of(tensor)
    modified = write[1] if write is not None else None
    by_step = modified is not None and modified == last_step_site()
    return say(
        "inplace",
        node=node.name() if node is not None else "backward",
        saved=place(site_of(node) if node is not None else None),
        modified=place(modified),
    ) + say("inplace_fix_step" if by_step else "inplace_fix")


def add_backward_hint(error, node):
    """The engine caught ``error`` while running ``node``: after the freed-graph error, say which backward freed
    the graph and what usually went wrong (in place, so the traceback stays the one that raised)."""
    from ndgrad.autograd.saved import FREED_MESSAGE

    if not _Settings.enabled or type(error) is not RuntimeError or error.args != (FREED_MESSAGE,):
        return
    first_raw = getattr(node, "_freed_by", None)
    made = place(site_of(node))
    if first_raw is None:
        hint = f"{say('freed_earlier', node=node.name(), made=made)}\n"
        hint += sentences(say("freed_maybe_loop"), say("freed_carried"))
    else:
        first = Site.from_raw(first_raw)
        hint = f"{say('freed', first=place(first), node=node.name(), made=made)}\n"
        if first == Site.from_raw(capture(1)):
            hint += sentences(say("freed_loop"), say("freed_carried"))
        else:
            hint += say("freed_shared")
    error.args = (with_hint(FREED_MESSAGE, hint),)


def cut_hint(tensor):
    """Where the chain that should lead to ``tensor`` was cut: its own mark if it has one, else the latest cuts."""
    return "\n".join(cut_lines(tensor))


def cut_lines(tensor):
    origin = origin_of(tensor)
    if origin is not None and origin[0] != "leaf":
        how, site = origin
        if how in ("no_grad", "inference_mode"):
            return [say("no_grad", mode=how, place=place(site))]
        if how == "integer cast":
            return [say("integer_cast", dtype=tensor.dtype, place=place(site))]
        return [say("detached" if how == "detach" else "data", place=place(site))]
    lines = recent_cut_lines()
    if not lines:
        return [say("nothing_required")] if is_provenance_enabled() else []  # off: nothing was seen, nothing to say
    return [sentences(say("computed_without_grad"), lines[0]), *lines[1:]]


def recent_cut_lines():
    """The latest places where a tensor that required grad left the graph, as lines under a heading; [] if none."""
    cuts = recent_cuts()
    if not cuts:
        return []
    return [say("recent_cuts")] + [say("cut.line", how=say("cut." + how), place=place(site)) for how, site in cuts]
