// The small projects the realistic sessions (tests/shell/sessions.json) work in, committed in
// a git repository of their own: a Python package, a Node project and a Java project. Shared by the replay through
// the hook (sessions.mjs) and the real agent's run (tests/agents/realwork.mjs).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const projects = {
    python: {
        'README.md': '# calc\n',
        'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
        'requirements.txt': 'pytest==8.0.0\n',
        '.gitignore': '__pycache__/\n*.pyc\n.venv/\n',
        'src/calc/__init__.py': '__version__ = "0.1.0"\n',
        'src/calc/core.py': 'def add(a, b):\n    return a + b\n\n\ndef divide(a, b):\n    return a / b\n\n\ndef multiply(a, b):\n    return a * b\n',
        'tests/test_core.py': 'from calc.core import add, divide\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_divide():\n    assert divide(4, 2) == 2\n',
    },
    node: {
        'README.md': '# slug\n',
        'package.json': '{"name": "slug", "version": "1.0.0", "scripts": {"test": "node --test", "lint": "node --check src/index.js"}}\n',
        'package-lock.json': '{"name": "slug", "version": "1.0.0", "lockfileVersion": 3, "packages": {}}\n',
        '.gitignore': 'node_modules/\n',
        'src/index.js': 'exports.slugify = (s) => s.toLowerCase().replace(/\\s+/g, "-");\n',
        'test/index.test.js': 'const test = require("node:test");\nconst assert = require("node:assert");\nconst { slugify } = require("../src/index.js");\ntest("slug", () => assert.equal(slugify("A B"), "a-b"));\n',
    },
    java: {
        'README.md': '# stack\n\nA bounded stack.\n',
        'pom.xml': '<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.example</groupId>\n  <artifactId>stack</artifactId>\n  <version>1.0.0</version>\n  <properties>\n    <maven.compiler.release>17</maven.compiler.release>\n  </properties>\n</project>\n',
        '.gitignore': 'target/\nout/\n',
        'src/main/java/com/example/Stack.java': 'package com.example;\n\npublic class Stack {\n    private final int[] items;\n    private int size;\n\n    public Stack(int capacity) {\n        items = new int[capacity];\n    }\n\n    public void push(int x) {\n        items[size++] = x;\n    }\n\n    public int pop() {\n        return items[--size];\n    }\n\n    public int size() {\n        return size;\n    }\n}\n',
        'src/test/java/com/example/StackTest.java': 'package com.example;\n\npublic class StackTest {\n    public static void main(String[] args) {\n        Stack s = new Stack(2);\n        s.push(1);\n        s.push(2);\n        if (s.pop() != 2) throw new AssertionError("pop");\n        System.out.println("StackTest passed");\n    }\n}\n',
    },
};
// Lays the project out in ws and commits it.
export function commitProject(ws, project) {
    for (const [file, content] of Object.entries(projects[project])) {
        mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
        writeFileSync(path.join(ws, file), content);
    }
    const git = (...args) => execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args]);
    git('init', '-q', '-b', 'main');
    // The agent commits too (a real one runs git commit): an identity of the repository's own.
    git('config', 'user.name', 'agent');
    git('config', 'user.email', 'agent@example.invalid');
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
    return ws;
}
