"""Who is asking and what they may see: actor, scope, the policy file, the SQL rewrite."""
