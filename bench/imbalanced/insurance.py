#!/usr/bin/env python3
"""A generated customer table shaped like the CoIL 2000 insurance data.

6000 customers, 85 feature columns and a 0/1 label (bought a caravan
policy), about 6 % positive, with a weak signal: mostly categorical text
columns as such tables arrive from a data warehouse (customer type and
subtype names, an age band, 38 neighbourhood shares coded as ranges such as
"24 - 36%", 21 policy contributions coded as money bands such as
"f 200 - 499") and 23 numeric ones (household counts and sizes, numbers of
policies). A few latent traits (wealth, family, car affinity) drive the
columns and the label; the label's log-odds also carry a subtype effect and
Gaussian noise, and its intercept is set so that 6 % of the rows are
positive. Deterministic from the seed (numpy's default_rng).

    insurance.py --out FILE.csv [--rows 6000] [--seed 2000]
"""
import argparse

import numpy as np
import pandas as pd

MAIN_TYPES = ["Successful hedonists", "Driven Growers", "Average Family", "Career Loners", "Living well",
              "Cruising Seniors", "Retired and Religious", "Family with grown ups", "Conservative families", "Farmers"]
SUBTYPE_WORDS = ["young and rising", "middle class", "established", "low income", "village", "suburban",
                 "urban", "mixed", "seniors", "students", "large family", "dinki"]
AGE_BANDS = ["20-30 years", "30-40 years", "40-50 years", "50-60 years", "60-70 years", "70-80 years"]
SHARES = ["0%", "1 - 10%", "11 - 23%", "24 - 36%", "37 - 49%", "50 - 62%", "63 - 75%", "76 - 88%", "89 - 99%", "100%"]
MONEY = ["f 0", "f 1 - 49", "f 50 - 99", "f 100 - 199", "f 200 - 499", "f 500 - 999", "f 1000 - 4999",
         "f 5000 - 9999", "f 10000 - 19999", "f 20000 - ?"]
SHARE_COLS = ["roman_catholic", "protestant", "other_religion", "no_religion", "married", "living_together",
              "other_relation", "singles", "household_without_children", "household_with_children",
              "high_level_education", "medium_level_education", "lower_level_education", "high_status",
              "entrepreneur", "farmer", "middle_management", "skilled_labourers", "unskilled_labourers",
              "social_class_a", "social_class_b1", "social_class_b2", "social_class_c", "social_class_d",
              "rented_house", "home_owners", "one_car", "two_cars", "no_car", "national_health_service",
              "private_health_insurance", "income_lt_30k", "income_30_45k", "income_45_75k", "income_75_122k",
              "income_gt_123k", "average_income", "purchasing_power_class"]
POLICIES = ["private_third_party", "third_party_firms", "third_party_agriculture", "car", "delivery_van",
            "motorcycle_scooter", "lorry", "trailer", "tractor", "agricultural_machines", "moped", "life",
            "private_accident", "family_accidents", "disability", "fire", "surfboard", "boat", "bicycle",
            "property", "social_security"]


def generate(rows, seed):
    rng = np.random.default_rng(seed)
    n = rows
    wealth, family, car = rng.normal(size=(3, n))
    # Customer type: a softmax over types, each with a wealth and a family loading.
    tw, tf = rng.normal(size=(2, len(MAIN_TYPES)))
    logits = np.outer(wealth, tw) + np.outer(family, tf) + rng.gumbel(size=(n, len(MAIN_TYPES)))
    main = logits.argmax(1)
    sub_of = [rng.choice(len(SUBTYPE_WORDS), size=4, replace=False) for _ in MAIN_TYPES]
    sub_k = rng.integers(0, 4, size=n)
    subtype = np.array([f"{MAIN_TYPES[m]}, {SUBTYPE_WORDS[sub_of[m][k]]}" for m, k in zip(main, sub_k)])
    sub_effect = {s: e for s, e in zip(sorted(set(subtype)), rng.normal(scale=0.25, size=len(set(subtype))))}
    age = np.clip(np.round(1.8 + 0.6 * family + 0.4 * wealth + rng.normal(scale=1.1, size=n)), 0, 5).astype(int)
    cols = {"customer_subtype": subtype, "customer_main_type": np.array(MAIN_TYPES)[main],
            "number_of_houses": np.clip(rng.poisson(0.15, size=n) + 1, 1, 10),
            "avg_household_size": np.clip(np.round(2.6 + 0.8 * family + rng.normal(scale=0.7, size=n)), 1, 6).astype(int),
            "age_band": np.array(AGE_BANDS)[age]}
    for c in SHARE_COLS:
        lw, lf = rng.normal(scale=0.8, size=2)
        level = 3.5 + rng.normal(scale=1.2) + lw * wealth + lf * family + rng.normal(scale=1.6, size=n)
        cols["share_" + c] = np.array(SHARES)[np.clip(np.round(level), 0, 9).astype(int)]
    held = {}
    for p in POLICIES:
        base = {"car": 0.3, "fire": 0.2, "private_third_party": 0.1}.get(p, -2.8)
        aff = {"car": 1.2, "delivery_van": 0.6, "motorcycle_scooter": 0.6, "moped": 0.4}.get(p, 0.0)
        has = rng.random(n) < 1 / (1 + np.exp(-(base + 0.5 * wealth + aff * car)))
        count = np.where(has, 1 + rng.poisson(0.2, size=n), 0)
        money = np.where(has, np.clip(np.round(4 + 0.8 * wealth + 0.5 * aff * car + rng.normal(scale=1.0, size=n)), 1, 9), 0).astype(int)
        held[p] = money
        cols["contribution_" + p] = np.array(MONEY)[money]
        cols["number_of_" + p + "_policies"] = count
    eta = (1.0 * wealth + 0.8 * car + 0.5 * (held["car"] >= 5) + 0.4 * (held["fire"] >= 3)
           + 0.3 * (held["private_third_party"] > 0) - 0.3 * family
           + np.array([sub_effect[s] for s in subtype]) + rng.normal(scale=0.8, size=n))
    # The intercept that makes 6 % of the rows positive in expectation.
    lo, hi = -10.0, 5.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if (1 / (1 + np.exp(-(mid + eta)))).mean() < 0.06:
            lo = mid
        else:
            hi = mid
    y = (rng.random(n) < 1 / (1 + np.exp(-(lo + eta)))).astype(int)
    df = pd.DataFrame(cols)
    assert df.shape[1] == 85, df.shape
    df["caravan_policy"] = y
    return df


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rows", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=2000)
    a = ap.parse_args()
    generate(a.rows, a.seed).to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
