-- empty.sql: comments only, no statement
/* nothing here */
