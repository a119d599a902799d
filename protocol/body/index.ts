// JSON bodies and the fastjson dialect.
export {};
