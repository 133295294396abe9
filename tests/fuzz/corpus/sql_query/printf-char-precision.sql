SELECT printf('%.2147483647c','y'), format('%.*c', 2147483000, 'x');
