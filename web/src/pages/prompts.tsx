import { PageHeader } from '../components/ui.js';

export function PromptsPage(props: Record<string, string>) {
  void props;
  return <PageHeader title="Prompts" />;
}
