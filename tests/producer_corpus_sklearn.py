"""The skl2onnx part of the producer corpus: scikit-learn estimators converted by skl2onnx.

Classifiers with and without ZipMap (binary, multiclass, string labels), regressors, pipelines
with scalers / OneHotEncoder / ColumnTransformer, DictVectorizer models and text features.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from producer_corpus import Data, save

Produced = Iterator[tuple[str, str, dict[str, Any]]]


def _convert(estimator: Any, x: Any, options: dict[str, Any] | None = None, initial_types: Any = None) -> Any:
    from skl2onnx import to_onnx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if initial_types is not None:
            return to_onnx(estimator, initial_types=initial_types, options=options)
        return to_onnx(estimator, x[:1], options=options)


def _fit(estimator: Any, x: Any, y: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator.fit(x, y)


def classifiers() -> list[tuple[str, Any]]:
    from sklearn.ensemble import (
        AdaBoostClassifier,
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    return [
        ("logreg", LogisticRegression(max_iter=200)),
        ("random_forest", RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0)),
        ("gradient_boosting", GradientBoostingClassifier(n_estimators=3, max_depth=2, random_state=0)),
        ("svc", SVC(probability=True, random_state=0)),
        ("knn", KNeighborsClassifier(n_neighbors=3)),
        ("decision_tree", DecisionTreeClassifier(max_depth=3, random_state=0)),
        ("extra_trees", ExtraTreesClassifier(n_estimators=3, max_depth=3, random_state=0)),
        ("gaussian_nb", GaussianNB()),
        ("mlp", MLPClassifier(hidden_layer_sizes=(4,), max_iter=50, random_state=0)),
        ("adaboost", AdaBoostClassifier(n_estimators=3, random_state=0)),
        ("sgd", SGDClassifier(loss="log_loss", random_state=0)),
    ]


def regressors() -> list[tuple[str, Any]]:
    from sklearn.ensemble import ExtraTreesRegressor, GradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import ElasticNet, Lasso, LinearRegression, Ridge
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.neural_network import MLPRegressor
    from sklearn.svm import SVR
    from sklearn.tree import DecisionTreeRegressor

    return [
        ("linear", LinearRegression()),
        ("ridge", Ridge()),
        ("lasso", Lasso(alpha=0.01)),
        ("elastic_net", ElasticNet(alpha=0.01)),
        ("decision_tree", DecisionTreeRegressor(max_depth=3, random_state=0)),
        ("random_forest", RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0)),
        ("extra_trees", ExtraTreesRegressor(n_estimators=3, max_depth=3, random_state=0)),
        ("gradient_boosting", GradientBoostingRegressor(n_estimators=3, max_depth=2, random_state=0)),
        ("svr", SVR()),
        ("knn", KNeighborsRegressor(n_neighbors=3)),
        ("mlp", MLPRegressor(hidden_layer_sizes=(4,), max_iter=50, random_state=0)),
    ]


def build_classifiers(out: Path) -> Produced:
    data = Data(1)
    x = data.floats(40, 4)
    y3 = (x[:, 0] > 0.3).astype(np.int64) + (x[:, 1] > 0).astype(np.int64)
    y2 = (x[:, 2] > 0).astype(np.int64)
    feeds = {"X": x[:5]}
    for name, estimator in classifiers():
        _fit(estimator, x, y3)
        for zipmap in (True, False):
            stem = f"skl_cls_{name}_{'zipmap' if zipmap else 'nozipmap'}"
            save(_convert(estimator, x, None if zipmap else {"zipmap": False}), out, stem)
            yield stem, "skl2onnx", feeds
    # Binary problems and string labels: other ZipMap key types and post-processing paths.
    from sklearn.base import clone

    for name, estimator in classifiers()[:4]:
        binary = _fit(clone(estimator), x, y2)
        save(_convert(binary, x), out, f"skl_cls_{name}_binary")
        yield f"skl_cls_{name}_binary", "skl2onnx", feeds
        labels = np.array(["low", "mid", "high"])[y3]
        strings = _fit(clone(estimator), x, labels)
        save(_convert(strings, x), out, f"skl_cls_{name}_strlabels")
        yield f"skl_cls_{name}_strlabels", "skl2onnx", feeds


def build_regressors(out: Path) -> Produced:
    data = Data(2)
    x = data.floats(40, 4)
    y = (x @ np.array([1.0, -2.0, 0.5, 0.0], dtype=np.float32) + 0.1 * data.floats(40, 1)[:, 0]).astype(
        np.float32
    )
    for name, estimator in regressors():
        _fit(estimator, x, y)
        save(_convert(estimator, x), out, f"skl_reg_{name}")
        yield f"skl_reg_{name}", "skl2onnx", {"X": x[:5]}


def build_pipelines(out: Path) -> Produced:
    from sklearn.compose import ColumnTransformer
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import (
        Binarizer,
        MinMaxScaler,
        Normalizer,
        OneHotEncoder,
        RobustScaler,
        StandardScaler,
    )
    from sklearn.svm import SVR
    from sklearn.tree import DecisionTreeClassifier

    data = Data(3)
    x = data.floats(40, 4)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    yr = (x[:, 0] * 2 - x[:, 3]).astype(np.float32)
    numeric = [
        ("scaler_logreg", make_pipeline(StandardScaler(), LogisticRegression()), y),
        ("minmax_svr", make_pipeline(MinMaxScaler(), SVR()), yr),
        ("robust_pca_linear", make_pipeline(RobustScaler(), PCA(n_components=2), LinearRegression()), yr),
        (
            "normalizer_tree",
            make_pipeline(Normalizer(), DecisionTreeClassifier(max_depth=3, random_state=0)),
            y,
        ),
        ("binarizer_logreg", make_pipeline(Binarizer(), LogisticRegression()), y),
    ]
    for name, pipe, target in numeric:
        _fit(pipe, x, target)
        save(_convert(pipe, x), out, f"skl_pipe_{name}")
        yield f"skl_pipe_{name}", "skl2onnx", {"X": x[:5]}
    for name, step in (("standard_scaler", StandardScaler()), ("pca", PCA(n_components=2))):
        _fit(step, x, None)
        save(_convert(step, x), out, f"skl_tr_{name}")
        yield f"skl_tr_{name}", "skl2onnx", {"X": x[:5]}

    # Mixed numeric and categorical columns: two graph inputs, OneHotEncoder on int64 codes.
    from skl2onnx.common.data_types import Int64TensorType, StringTensorType

    cats = data.rng.integers(0, 3, size=(40, 2)).astype(np.int64)
    table = np.concatenate([x[:, :2], cats.astype(np.float32)], axis=1)
    mixed = make_pipeline(
        ColumnTransformer(
            [("num", StandardScaler(), [0, 1]), ("cat", OneHotEncoder(handle_unknown="ignore"), [2, 3])]
        ),
        LogisticRegression(),
    )
    _fit(mixed, table, y)
    save(_convert(mixed, table, {"zipmap": False}), out, "skl_pipe_columns_onehot")
    yield "skl_pipe_columns_onehot", "skl2onnx", {"X": table[:5]}

    onehot = OneHotEncoder(handle_unknown="ignore")
    _fit(onehot, cats, None)
    save(
        _convert(onehot, cats, initial_types=[("cats", Int64TensorType([None, 2]))]), out, "skl_tr_onehot_int"
    )
    yield "skl_tr_onehot_int", "skl2onnx", {"cats": cats[:5]}
    words = np.array(
        [["red", "small"], ["blue", "big"], ["green", "small"], ["red", "big"]] * 5, dtype=object
    )
    yw = np.array([0, 1, 0, 1] * 5)
    str_pipe = make_pipeline(OneHotEncoder(handle_unknown="ignore"), LogisticRegression())
    _fit(str_pipe, words, yw)
    types = [("words", StringTensorType([None, 2]))]
    save(_convert(str_pipe, words, initial_types=types), out, "skl_pipe_onehot_strings")
    yield "skl_pipe_onehot_strings", "skl2onnx", {"words": words[:3]}


def build_dict_and_text(out: Path) -> Produced:
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, StringTensorType
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    data = Data(4)
    keys = ["a", "b", "c", "d"]
    rows = [{k: float(v) for k, v in zip(keys, data.rng.standard_normal(4)) if v > -0.5} for _ in range(30)]
    y = np.array([int(r.get("a", 0.0) > 0) for r in rows])
    yr = np.array([r.get("b", 0.0) * 2 for r in rows], dtype=np.float32)
    dict_type = [("features", DictionaryType(StringTensorType([1]), FloatTensorType([1])))]
    for name, pipe, target in (
        ("dictvec_logreg", make_pipeline(DictVectorizer(sparse=False), LogisticRegression()), y),
        (
            "dictvec_forest",
            make_pipeline(
                DictVectorizer(sparse=False), RandomForestRegressor(3, max_depth=3, random_state=0)
            ),
            yr,
        ),
        ("dictvec", DictVectorizer(sparse=False), None),
    ):
        _fit(pipe, rows, target)
        save(_convert(pipe, rows, initial_types=dict_type), out, f"skl_{name}")
        yield f"skl_{name}", "skl2onnx", {"features": rows[0]}

    texts = np.array(["the cat sat", "a dog ran", "the dog sat down", "a cat ran away"] * 5)
    yt = np.array([0, 1, 1, 0] * 5)
    text_type = [("text", StringTensorType([None, 1]))]
    for name, vectorizer in (("count", CountVectorizer()), ("tfidf", TfidfVectorizer())):
        pipe = make_pipeline(vectorizer, LogisticRegression())
        _fit(pipe, texts, yt)
        # locale "C": onnxruntime's StringNormalizer needs the locale to exist on the machine.
        options = {LogisticRegression: {"zipmap": False}, type(vectorizer): {"locale": "C"}}
        save(_convert(pipe, texts, options, initial_types=text_type), out, f"skl_text_{name}")
        yield f"skl_text_{name}", "skl2onnx", {"text": texts[:4].reshape(-1, 1)}
