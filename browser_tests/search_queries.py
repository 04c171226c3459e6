"""What readers type into the search box, and the section each must find.

A pasted message (an error's or a warning's text, as Python prints it) must find its
section first; a question in a reader's words, within the first three results. Each
query runs in the edition it is written for: the messages in both, since PyTorch prints
them in English to every reader. ``expected`` is a page and, after ``#``, the id of its
section; a page alone means its title section. Questions are worded as readers wrote
them in the threads ``docs/questions.md`` cites, not copied from that page.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How far down a result may sit: a message is pasted to find its own section.
FIRST = {"message": 1, "question": 3}


@dataclass(frozen=True)
class Query:
    text: str
    expected: str
    kind: str  # "message" or "question"
    editions: tuple[str, ...] = ("en",)
    #: Other sections that answer it as well (held-out questions only).
    also: tuple[str, ...] = ()


BOTH = ("en", "zh_CN")
E = "errors.html#"
W = "warnings.html#"

QUERIES = (
    # Errors, as the last line of their traceback reads.
    Query(
        "RuntimeError: one of the variables needed for gradient computation has been "
        "modified by an inplace operation",
        E + "one-of-the-variables-needed-for-gradient-computation-has-been-modified-"
        "by-an-inplace-operation",
        "message",
        BOTH,
    ),
    Query(
        "RuntimeError: a leaf Variable that requires grad is being used in an "
        "in-place operation.",
        E + "a-leaf-variable-that-requires-grad-is-being-used-in-an-in-place-operation",
        "message",
        BOTH,
    ),
    Query(
        "a view of a leaf Variable that requires grad is being used in an in-place "
        "operation",
        E + "a-view-of-a-leaf-variable-that-requires-grad-is-being-used-in-an-in-place-"
        "operation",
        "message",
        BOTH,
    ),
    Query(
        "RuntimeError: view size is not compatible with input tensor's size and "
        "stride (at least one dimension spans across two contiguous subspaces). "
        "Use .reshape(...) instead.",
        E + "view-size-is-not-compatible-with-input-tensor-s-size-and-stride",
        "message",
        BOTH,
    ),
    Query(
        "RuntimeError: element 0 of tensors does not require grad and does not have "
        "a grad_fn",
        E + "element-0-of-tensors-does-not-require-grad-and-does-not-have-a-grad-fn",
        "message",
        BOTH,
    ),
    Query(
        "RuntimeError: Trying to backward through the graph a second time",
        E + "trying-to-backward-through-the-graph-a-second-time",
        "message",
        BOTH,
    ),
    Query(
        "unsupported operation: more than one element of the written-to tensor refers "
        "to a single memory location. Please clone() the tensor before performing the "
        "operation.",
        E + "more-than-one-element-of-the-written-to-tensor-refers-to-a-single-memory-"
        "location",
        "message",
        BOTH,
    ),
    Query(
        "RuntimeError: Inplace update to inference tensor outside InferenceMode is "
        "not allowed",
        E + "inplace-update-to-inference-tensor-outside-inferencemode",
        "message",
        BOTH,
    ),
    Query(
        "RuntimeError: Can't call numpy() on Tensor that requires grad. Use "
        "tensor.detach().numpy() instead.",
        E + "can-t-call-numpy-on-tensor-that-requires-grad",
        "message",
        BOTH,
    ),
    Query(
        "Can't detach views in-place. Use detach() instead.",
        E + "can-t-detach-views-in-place",
        "message",
        BOTH,
    ),
    # Warnings, as Python prints them.
    Query(
        "UserWarning: To copy construct from a tensor, it is recommended to use "
        "sourceTensor.detach().clone()",
        W + "to-copy-construct-from-a-tensor-it-is-recommended-to-use-sourcetensor-"
        "detach-clone",
        "message",
        BOTH,
    ),
    Query(
        "UserWarning: The given NumPy array is not writable, and PyTorch does not "
        "support non-writable tensors.",
        W + "the-given-numpy-array-is-not-writable",
        "message",
        BOTH,
    ),
    Query(
        "Use of index_put_ on expanded tensors is deprecated",
        W + "use-of-index-put-on-expanded-tensors-is-deprecated",
        "message",
        BOTH,
    ),
    Query(
        "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is "
        "being accessed.",
        W
        + "the-grad-attribute-of-a-tensor-that-is-not-a-leaf-tensor-is-being-accessed",
        "message",
        BOTH,
    ),
    Query(
        "UserWarning: An output with one or more elements was resized since it had "
        "shape",
        W + "an-output-with-one-or-more-elements-was-resized",
        "message",
        BOTH,
    ),
    Query(
        "UserWarning: Casting complex values to real discards the imaginary part",
        W + "casting-complex-values-to-real-discards-the-imaginary-part",
        "message",
        BOTH,
    ),
    # Questions, in the readers' words.
    Query(
        "difference between view and reshape",
        "views.html#operations-that-may-return-a-view",
        "question",
    ),
    Query(
        "does gradient flow back through clone",
        "autograd.html#clone-stays-in-the-graph",
        "question",
    ),
    Query(
        "difference between .data and .detach()",
        "autograd.html#data-versus-detach",
        "question",
    ),
    Query(
        "does a small slice keep the whole tensor in memory",
        "views.html#a-small-slice-keeps-its-whole-storage-alive",
        "question",
    ),
    Query(
        "why is torch.save of a slice as large as the whole tensor",
        "saving.html#torch-save-of-a-view-writes-the-whole-storage",
        "question",
    ),
    Query(
        "does the DataLoader copy the dataset for every worker",
        "processes.html#dataloader-workers-and-copy-on-read",
        "question",
    ),
    Query(
        "best weights from state_dict keep changing during training",
        "modules.html#state-dict-and-snapshots",
        "question",
    ),
    Query(
        "why is non_blocking not the default",
        "processes.html#pinned-memory-and-non-blocking-copies",
        "question",
    ),
    Query(
        "which in-place operations break backward",
        "inplace-memory.html#which-in-place-operations-break-backward",
        "question",
    ),
    Query(
        "x[mask][:, 0] = 0 does not change x",
        "indexed-writes.html#a-subscript-read-copies-a-subscript-assignment-writes",
        "question",
    ),
    Query(
        "detach or torch.no_grad",
        "autograd.html#detach-and-torch-no-grad-leave-it",
        "question",
    ),
    Query(
        "expected scalar type Double but found Float from_numpy",
        "numpy.html#dtype-numpy-s-floats-default-to-float64",
        "question",
    ),
    # The same, in the Chinese edition's words; and the phrases that found nothing.
    Query(
        "view 和 reshape 有什么区别",
        "views.html#operations-that-may-return-a-view",
        "question",
        ("zh_CN",),
    ),
    Query(
        "梯度会经过 clone 流回原来的张量吗",
        "autograd.html#clone-stays-in-the-graph",
        "question",
        ("zh_CN",),
    ),
    Query(
        "小切片会让整个张量留在内存里吗",
        "views.html#a-small-slice-keeps-its-whole-storage-alive",
        "question",
        ("zh_CN",),
    ),
    Query(
        "哪些原地操作会破坏反向传播",
        "inplace-memory.html#which-in-place-operations-break-backward",
        "question",
        ("zh_CN",),
    ),
    Query(
        "DataLoader 会为每个 worker 复制数据集吗",
        "processes.html#dataloader-workers-and-copy-on-read",
        "question",
        ("zh_CN",),
    ),
    Query(
        "保存切片的文件和整个张量一样大",
        "saving.html#torch-save-of-a-view-writes-the-whole-storage",
        "question",
        ("zh_CN",),
    ),
    Query("原地操作内存", "inplace-memory.html", "question", ("zh_CN",)),
    Query("视图和副本", "views.html", "question", ("zh_CN",)),
    Query("梯度流回", "autograd.html#clone-stays-in-the-graph", "question", ("zh_CN",)),
    Query(
        "NumPy 数组和张量共享内存吗",
        "numpy.html",
        "question",
        ("zh_CN",),
    ),
    Query(
        "共享内存吗",
        "mental-model.html#sharing-memory-means-overlapping-bytes",
        "question",
        ("zh_CN",),
    ),
)

#: Questions written after the ranking was tuned on ``QUERIES``, in words the
#: questions page does not use: ``measure_search.py`` reports how they fare, as a
#: check that the tuning did not fit the list alone. Not asserted: several have more
#: than one fair answer, and the expected one is a judgement.
HELD_OUT = (
    Query("does torch.from_numpy copy the array", "numpy.html#the-conversions-at-a-glance", "question",
          also=("gallery/from_numpy.html#torch-from-numpy-and-tensor-numpy-one-buffer-two-names",
                "gallery/from_numpy.html#which-constructors-copy")),
    Query("does detach share memory with the original", "autograd.html#same-memory-out-of-the-graph", "question",
          also=("gallery/detach.html#the-detached-tensor-is-the-same-memory",)),
    Query("why does changing a slice change the original tensor", "views.html#operations-that-return-views", "question",
          also=("gallery/view.html#slicing-views-advanced-indexing-copies",)),
    Query("does b = a copy the tensor", "mental-model.html#assignment-copies-nothing", "question"),
    Query("how to check if two tensors share memory", "mental-model.html#sharing-memory-means-overlapping-bytes", "question",
          also=("mental-model.html#how-to-tell-most-direct-proof-first",)),
    Query("does optimizer.step modify parameters in place", "modules.html#modules-optimizer", "question"),
    Query("does in-place ReLU save memory", "myths.html#in-place-relu-always-saves-memory", "question",
          also=("gallery/inplace_relu_memory.html#in-place-relu-the-memory-it-saves-and-when-it-breaks-backward",)),
    Query("detach 之后还共享内存吗", "autograd.html#same-memory-out-of-the-graph", "question", ("zh_CN",),
          also=("gallery/detach.html#the-detached-tensor-is-the-same-memory",)),
    Query("torch.from_numpy 会复制数据吗", "numpy.html#the-conversions-at-a-glance", "question", ("zh_CN",),
          also=("gallery/from_numpy.html#torch-from-numpy-and-tensor-numpy-one-buffer-two-names",
                "gallery/from_numpy.html#which-constructors-copy")),
    Query("赋值 b = a 会复制张量吗", "mental-model.html#assignment-copies-nothing", "question", ("zh_CN",)),
    Query("怎么判断两个张量是否共享内存", "mental-model.html#sharing-memory-means-overlapping-bytes", "question", ("zh_CN",),
          also=("mental-model.html#how-to-tell-most-direct-proof-first",)),
)  # fmt: skip


def cases(queries: tuple[Query, ...] = QUERIES) -> list[tuple[str, Query]]:
    """Each query with each edition it runs in."""
    return [(edition, q) for q in queries for edition in q.editions]
