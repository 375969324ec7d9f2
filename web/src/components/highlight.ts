import type { Element, ElementContent, Root } from 'hast';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { createLowlight } from 'lowlight';

/**
 * The languages model messages are mostly written in (each grammar's own aliases too: js, ts, py, sh, html,
 * yml…): a fenced block in one of them is highlighted, any other stays plain. Fifteen, not highlight.js's
 * 190, to keep the renderer's chunk small.
 */
const lowlight = createLowlight({ bash, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml });

function languageOf(code: Element): string | undefined {
  const classes = code.properties.className;
  const named = Array.isArray(classes) ? classes.map(String).find((c) => c.startsWith('language-')) : undefined;
  const language = named?.slice('language-'.length).toLowerCase();
  return language && lowlight.registered(language) ? language : undefined;
}

function highlight(code: Element): void {
  const language = languageOf(code);
  if (!language) return;
  const text = code.children.map((child) => (child.type === 'text' ? child.value : '')).join('');
  code.children = lowlight.highlight(language, text).children as ElementContent[];
  code.properties.className = [...(code.properties.className as string[]), 'hljs'];
}

function walk(node: Root | Element): void {
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    if (child.tagName === 'code' && node.type === 'element' && node.tagName === 'pre') highlight(child);
    else walk(child);
  }
}

/** A rehype plugin: the code of each `<pre>` highlighted by its `language-*` class, as highlight.js's classed spans. */
export function rehypeHighlightCode() {
  return (tree: Root) => walk(tree);
}
