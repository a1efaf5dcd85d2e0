"""Frozen answers of the fixed cases in ``inputs44.py`` (float64), written by the judge's oracle.

Generated; tests/exercises/test_044_importance_sampling.py checks them against the oracle.
"""

NAN = float("nan")
INF = float("inf")

FROZEN = {
    "hand": {
        "ordinary": [5.625, 18.472640247326627],
        "self_normalized": [3.0, 2.5],
        "ess": [2.6470588235294117, 4.0],
        "truncated": [3.625, 5.0],
        "mistakes": {
            "ordinary": {
                "inverted_log_weights": [2.25, 0.33833820809153176],
                "ordinary_is_self_normalized": [3.0, 2.5],
                "ordinary_softmax_mean": [0.75, 0.625],
            },
            "self_normalized": {
                "inverted_log_weights": [2.4, 2.5],
                "sn_is_ordinary": [5.625, 18.472640247326627],
            },
            "ess": {
                "ess_unnormalized": [0.04705882352941177, 0.0045789097221835455],
                "ess_n_over_mean_square": [0.7529411764705883, 0.07326255555493673],
                "ess_numerator_not_squared": [1.411764705882353, 1.0],
            },
            "truncated": {
                "inverted_log_weights": [2.25, 0.33833820809153176],
                "clip_after_normalizing": [2.8666666666666667, 2.5],
                "clip_floor": [7.0, 18.472640247326627],
                "clip_log_cap": [5.625, 18.472640247326627],
            },
        },
    },
    "extreme64": {
        "ordinary": [NAN, NAN],
        "self_normalized": [4.0, 2.0000302661618146],
        "ess": [1.0, 3.0000907984853598],
        "truncated": [3.0, 1.4789962444262222e-304],
        "mistakes": {
            "ordinary": {},
            "self_normalized": {
                "inverted_log_weights": [3.0, 3.9997276375171373],
                "sn_is_ordinary": [INF, 1.4789962444262224e-304],
                "naive_exp": [NAN, 2.000030266161814],
            },
            "ess": {
                "inverted_log_weights": [1.0, 1.0002724119438122],
                "ess_unnormalized": [0.0, INF],
                "ess_n_over_mean_square": [0.0, INF],
                "ess_numerator_not_squared": [1.0, 1.0000151326228592],
                "naive_exp": [NAN, NAN],
            },
            "truncated": {
                "inverted_log_weights": [2.0, 5.0],
                "clip_after_normalizing": [2.0, 2.0000302661618146],
                "clip_floor": [INF, 5.0],
                "clip_log_cap": [9.736320123663313, 1.4789962444262222e-304],
            },
        },
    },
    "extreme32": {
        "ordinary": [NAN, 1.3851555960983775e35],
        "self_normalized": [1.0, 2.5],
        "ess": [1.0, 4.0],
        "truncated": [3.0, 5.0],
        "mistakes": {
            "ordinary": {
                "inverted_log_weights": [NAN, NAN],
                "ordinary_is_self_normalized": [1.0, 2.5],
                "ordinary_softmax_mean": [0.25, 0.625],
            },
            "self_normalized": {
                "inverted_log_weights": [2.0, 2.5],
                "sn_is_ordinary": [6.720292854540339e42, 1.3851555960983775e35],
                "naive_exp": [NAN, 2.5],
            },
            "ess": {
                "ess_unnormalized": [1.3838965267367376e-87, 8.143721330518803e-71],
                "ess_n_over_mean_square": [2.21423444277878e-86, 1.3029954128830085e-69],
                "ess_numerator_not_squared": [1.0, 1.0],
                "naive_exp": [NAN, NAN],
            },
            "truncated": {
                "inverted_log_weights": [2.0, 4.512128469613538e-35],
                "clip_after_normalizing": [0.5, 2.5],
                "clip_floor": [6.720292854540339e42, 1.3851555960983775e35],
                "clip_log_cap": [8.38905609893065, 18.472640247326627],
            },
        },
    },
    "near_overflow64": {
        "ordinary": [8.218407461554972e307, 9.340431438162236e306],
        "self_normalized": [1.0, 0.18161058363319194],
        "ess": [4.0, 2.9095169937333956],
        "truncated": [2.0, 1.25],
        "mistakes": {
            "ordinary": {
                "inverted_log_weights": [NAN, NAN],
                "ordinary_is_self_normalized": [1.0, 0.18161058363319194],
                "ordinary_softmax_mean": [0.25, 0.045402645908297984],
                "naive_exp": [INF, 9.340431438162239e306],
            },
            "self_normalized": {
                "inverted_log_weights": [1.0, 1.3328489886768995],
                "sn_is_ordinary": [8.218407461554972e307, 9.340431438162236e306],
                "naive_exp": [NAN, 0.0],
            },
            "ess": {
                "inverted_log_weights": [4.0, 2.290889703567304],
                "ess_unnormalized": [0.0, 0.0],
                "ess_n_over_mean_square": [0.0, 0.0],
                "ess_numerator_not_squared": [1.0, 1.1623121921438124],
                "naive_exp": [NAN, NAN],
            },
            "truncated": {
                "inverted_log_weights": [1.216780750623423e-308, 4.908874738682511e-308],
                "clip_after_normalizing": [1.0, 0.18161058363319194],
                "clip_floor": [INF, 9.340431438162236e306],
                "clip_log_cap": [7.38905609893065, 4.618160061831657],
            },
        },
    },
    "near_overflow32": {
        "ordinary": [1.6516362549940018e38, 1.8771270799994666e37],
        "self_normalized": [1.0, 0.18161058363319194],
        "ess": [4.0, 2.9095169937333956],
        "truncated": [2.0, 1.25],
        "mistakes": {
            "ordinary": {
                "inverted_log_weights": [NAN, NAN],
                "ordinary_is_self_normalized": [1.0, 0.18161058363319194],
                "ordinary_softmax_mean": [0.25, 0.045402645908297984],
                "naive_exp": [INF, 1.8771271211432803e37],
            },
            "self_normalized": {
                "inverted_log_weights": [1.0, 1.3328489886768995],
                "sn_is_ordinary": [1.6516362549940018e38, 1.8771270799994666e37],
                "naive_exp": [NAN, 0.0],
            },
            "ess": {
                "inverted_log_weights": [4.0, 2.290889703567304],
                "ess_unnormalized": [9.164551027948908e-78, 1.7021423358442512e-77],
                "ess_n_over_mean_square": [1.4663281644718252e-76, 2.723427737350802e-76],
                "ess_numerator_not_squared": [1.0, 1.1623121921438124],
                "naive_exp": [NAN, NAN],
            },
            "truncated": {
                "inverted_log_weights": [6.054601895401186e-39, 2.4426160819758447e-38],
                "clip_after_normalizing": [1.0, 0.18161058363319194],
                "clip_floor": [1.6516362549940018e38, 1.8771270799994664e37],
                "clip_log_cap": [7.38905609893065, 4.618160061831657],
            },
        },
    },
    "mixed32": {
        "ordinary": [-0.06709183659242601, 81.83208493757871, 0.3099524916323341, 4.9043777638739066e17],
        "self_normalized": [-0.0958654629897686, 3.730542017649481, 1.1138835885434186, 0.848968170342579],
        "ess": [2.9723051073822546, 3.597614031453186, 3.1827551746413927, 4.745564906413881],
        "truncated": [-0.08350927670453029, 5.141999979813893, 0.3099524916323342, 1.5629999538262684],
        "mistakes": {
            "ordinary": {
                "inverted_log_weights": [
                    -6.255752153527506,
                    0.12828373284897232,
                    -13.267526739539573,
                    1.6237895011664477e-18,
                ],
                "ordinary_is_self_normalized": [
                    -0.0958654629897686,
                    3.730542017649481,
                    1.1138835885434186,
                    0.848968170342579,
                ],
                "ordinary_softmax_mean": [
                    -0.015977577164961433,
                    0.6217570029415801,
                    0.18564726475723645,
                    0.1414946950570965,
                ],
            },
            "self_normalized": {
                "inverted_log_weights": [
                    -1.3959179035890246,
                    1.009202545216407,
                    -1.4905384149969636,
                    0.5978008804410601,
                ],
                "sn_is_ordinary": [-0.06709183659242601, 81.83208493757871, 0.3099524916323341, 4.9043777638739066e17],
            },
            "ess": {
                "inverted_log_weights": [3.149958027867445, 2.740122297826825, 3.0118604452202105, 3.4339391525387435],
                "ess_unnormalized": [
                    0.1685682871955156,
                    0.00020768670999140042,
                    1.1418001058983682,
                    3.950030084882748e-37,
                ],
                "ess_n_over_mean_square": [
                    6.068458339038561,
                    0.007476721559690415,
                    41.10480381234125,
                    1.4220108305577896e-35,
                ],
                "ess_numerator_not_squared": [
                    1.5272391867097586,
                    1.3598788098205445,
                    1.5670216543800515,
                    1.4515670316409375,
                ],
            },
            "truncated": {
                "inverted_log_weights": [
                    -1.6881850448477078,
                    0.12828373284897235,
                    -1.5172094284411706,
                    1.6237895011664477e-18,
                ],
                "clip_after_normalizing": [
                    -0.20867160128162807,
                    3.5648485794091846,
                    0.5948612546365432,
                    0.848968170342579,
                ],
                "clip_floor": [-1.6669158524913883, 81.83208493757871, -1.0909999807675679, 4.9043777638739066e17],
                "clip_log_cap": [-0.06709183659242603, 19.170394480372032, 0.3099524916323342, 5.774547170724158],
            },
        },
    },
}
