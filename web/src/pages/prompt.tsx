import { PageHeader } from '../components/ui.js';

export function PromptPage(props: Record<string, string>) {
  void props;
  return <PageHeader title="Prompt" />;
}
