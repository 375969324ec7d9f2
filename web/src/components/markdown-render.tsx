import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { rehypeHighlightCode } from './highlight.js';
import { ScrollArea } from './scroll-area.js';

/**
 * Markdown as model messages are written: CommonMark with GitHub's tables, task lists, strikethrough and
 * autolinks (remark-gfm), fenced code highlighted by its language (highlight.js through lowlight, the languages
 * highlight.ts names; a block in another language, or none, stays plain). It builds React elements, never HTML from the
 * text: HTML in a message shows as the text it is, links go to http(s) addresses only (others stay text),
 * and images are links, never loaded.
 */
const WEB = /^https?:\/\//i;

const languageOf = (className: unknown) => (typeof className === 'string' ? /(?:^|\s)language-([\w+#.-]+)/.exec(className)?.[1] : undefined);

const components: Components = {
  // Headings sit under the message's own: # is the third level.
  h1: ({ node: _, ...props }) => <h3 {...props} />,
  h2: ({ node: _, ...props }) => <h4 {...props} />,
  h3: ({ node: _, ...props }) => <h5 {...props} />,
  h4: ({ node: _, ...props }) => <h6 {...props} />,
  h5: ({ node: _, ...props }) => <h6 {...props} />,
  a: ({ href, children }) =>
    href && WEB.test(href) ? (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ) : (
      <>{children}</>
    ),
  img: ({ src, alt }) =>
    typeof src === 'string' && WEB.test(src) ? (
      <a href={src} target="_blank" rel="noopener noreferrer nofollow">
        Image{alt ? `: ${alt}` : ''}
      </a>
    ) : (
      <>{alt ?? ''}</>
    ),
  pre: ({ children }) => {
    const code = Array.isArray(children) ? children[0] : children;
    const lang = languageOf((code as { props?: { className?: unknown } } | undefined)?.props?.className);
    return (
      <pre className="sl-code" data-lang={lang}>
        {lang && <span className="sl-code-lang">{lang}</span>}
        {children}
      </pre>
    );
  },
  table: ({ node: _, children }) => (
    <ScrollArea className="sl-md-table" label="Table in the message">
      <table>{children}</table>
    </ScrollArea>
  ),
};

function MarkdownText({ text }: { text: string }) {
  return (
    <div className="sl-md">
      <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeHighlightCode]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}

export default memo(MarkdownText);
