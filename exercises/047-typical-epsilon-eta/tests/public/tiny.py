"""Tiny browser suite for exercise 47 (filled in below)."""

from judge.checks.budget import BudgetDeclaration

BUDGET = BudgetDeclaration()
