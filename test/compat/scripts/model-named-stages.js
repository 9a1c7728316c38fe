// Named pipeline stages as the spec and the public runtime describe them.
return await pipeline('p', { a: 1, b: 2 }, { double: (v) => v * 2, label: (v, key) => `${key}=${v}` });
