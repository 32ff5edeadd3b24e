"""The run store on PostgreSQL: tables, LISTEN/NOTIFY and advisory locks shared by every worker."""
