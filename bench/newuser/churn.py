#!/usr/bin/env python3
"""Writes a churn table as a new user's CSV file looks: an identifier, a signup
date, categories, numbers and a 0/1 label, deterministic from a seed.

    python3 bench/newuser/churn.py --out DIR [--seed 1] [--train 4500] [--test 1500]

writes DIR/train.csv and DIR/test.csv (15 columns, the label "churn" last), and
DIR/train-nodate.csv and DIR/test-nodate.csv, the same without signup_date.

Each customer signed up a whole number of days before 2024-01-01, uniformly
within 700 days (so ~700 distinct dates), and the chance of churning falls with
the tenure (the days since signing up), which no column holds but the date:
logit = 1.2 - tenure/180 + 1.3 [month-to-month] - 0.8 [two-year]
        + 0.35 (support calls - 2) - 0.45 (satisfaction - 3)
        + 0.025 (monthly charges - 65) + 0.4 [electronic check] + noise,
the label drawn from it. Only the standard library: the same seed gives the same
files with any Python 3.
"""

import argparse
import datetime
import math
import os
import random

REF = datetime.date(2024, 1, 1)
COLUMNS = ["customer_id", "signup_date", "age", "gender", "region", "plan", "payment_method", "contract",
           "monthly_charges", "support_calls", "data_usage_gb", "paperless_billing", "num_products",
           "satisfaction", "churn"]


def row(rng, i):
    tenure = rng.randrange(700)
    contract = rng.choices(["month-to-month", "one-year", "two-year"], weights=[5, 3, 2])[0]
    plan = rng.choice(["basic", "standard", "premium"])
    payment = rng.choice(["electronic check", "mailed check", "bank transfer", "credit card"])
    charges = {"basic": 40, "standard": 65, "premium": 90}[plan] + rng.gauss(0, 8)
    calls = min(int(rng.expovariate(1 / 2)), 12)
    satisfaction = rng.choices([1, 2, 3, 4, 5], weights=[1, 2, 4, 4, 2])[0]
    logit = (1.2 - tenure / 180 + 1.3 * (contract == "month-to-month") - 0.8 * (contract == "two-year")
             + 0.35 * (calls - 2) - 0.45 * (satisfaction - 3) + 0.025 * (charges - 65)
             + 0.4 * (payment == "electronic check") + rng.gauss(0, 0.5))
    churn = int(rng.random() < 1 / (1 + math.exp(-logit)))
    return [
        f"C{i:06d}",
        (REF - datetime.timedelta(days=tenure)).isoformat(),
        str(rng.randint(18, 80)),
        rng.choice(["F", "M"]),
        rng.choice(["north", "south", "east", "west", "central"]),
        plan,
        payment,
        contract,
        f"{charges:.2f}",
        str(calls),
        f"{rng.lognormvariate(2, 0.8):.2f}",
        rng.choice(["yes", "no"]),
        str(rng.randint(1, 4)),
        str(satisfaction),
        str(churn),
    ]


def write(path, rows, drop=None):
    keep = [j for j, c in enumerate(COLUMNS) if c != drop]
    with open(path, "w") as f:
        f.write(",".join(COLUMNS[j] for j in keep) + "\n")
        for r in rows:
            f.write(",".join(r[j] for j in keep) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train", type=int, default=4500)
    ap.add_argument("--test", type=int, default=1500)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    rows = [row(rng, i) for i in range(a.train + a.test)]
    os.makedirs(a.out, exist_ok=True)
    for name, part in [("train", rows[:a.train]), ("test", rows[a.train:])]:
        write(os.path.join(a.out, f"{name}.csv"), part)
        write(os.path.join(a.out, f"{name}-nodate.csv"), part, drop="signup_date")
    dates = len({r[1] for r in rows[:a.train]})
    rate = sum(int(r[-1]) for r in rows) / len(rows)
    print(f"{a.train} + {a.test} rows, {len(COLUMNS)} columns, {dates} distinct signup dates in training, churn rate {rate:.3f}")


if __name__ == "__main__":
    main()
