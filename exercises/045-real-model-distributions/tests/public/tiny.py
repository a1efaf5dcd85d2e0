"""placeholder"""
from judge.budget import BudgetDeclaration
BUDGET = BudgetDeclaration()
