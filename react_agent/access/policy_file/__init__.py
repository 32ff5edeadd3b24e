"""The policy file (POLICY_FILE): read and checked, the one in force, and what a reload loosens."""
