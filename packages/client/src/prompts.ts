import type { ListOptions, Paginated } from './pagination.js';
import { Collection, Resource, seg, type CallOptions } from './resource.js';
import type {
  CreatePromptInput,
  CreateVersionInput,
  LabelEvent,
  Prompt,
  PromptFilters,
  PromptVersion,
  RenderInput,
  RenderResult,
  UpdatePromptInput,
} from './types.js';

class PromptVersionsResource extends Resource {
  /** Newest version first. */
  list(prompt: string, options: ListOptions = {}): Paginated<PromptVersion> {
    return this.paginate<PromptVersion>(`/prompts/${seg(prompt)}/versions`, {}, options);
  }
  /** The next version (versions are immutable). */
  create(prompt: string, body: CreateVersionInput, options: CallOptions = {}): Promise<PromptVersion> {
    return this.send('POST', `/prompts/${seg(prompt)}/versions`, body, options);
  }
  /** One version, by number or by label (`production`). */
  get(prompt: string, version: number | string, options: CallOptions = {}): Promise<PromptVersion> {
    return this.read(`/prompts/${seg(prompt)}/versions/${seg(version)}`, options);
  }
  /**
   * A conditional read for polling a label cheaply: pass the `etag` of the previous answer; while
   * the version is unchanged the server answers 304 and this returns `{ changed: false }`.
   */
  async poll(
    prompt: string,
    version: number | string,
    etag?: string,
    options: CallOptions = {},
  ): Promise<{ changed: true; version: PromptVersion; etag: string | undefined } | { changed: false; etag: string }> {
    const response = await this.http.request<PromptVersion>({
      method: 'GET',
      path: `/prompts/${seg(prompt)}/versions/${seg(version)}`,
      headers: etag ? { 'if-none-match': etag } : {},
      allowNotModified: true,
      signal: options.signal,
    });
    if (response.status === 304 && etag) return { changed: false, etag };
    return { changed: true, version: response.data, etag: response.headers.get('etag') ?? undefined };
  }
}

class PromptLabelsResource extends Resource {
  /** Points a label (e.g. `production`) at a version; every move is recorded. */
  set(prompt: string, label: string, version: number, options: CallOptions = {}): Promise<Prompt> {
    return this.send('PUT', `/prompts/${seg(prompt)}/labels/${seg(label)}`, { version }, options);
  }
  async remove(prompt: string, label: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/prompts/${seg(prompt)}/labels/${seg(label)}`, options);
  }
}

/**
 * `/v1/prompts`: `prompt` arguments take the prompt's id or its name. A prompt is created with its
 * version 1, and deleted (admins) with its versions and labels.
 */
export class PromptsResource extends Collection<Prompt, CreatePromptInput, UpdatePromptInput, PromptFilters> {
  protected readonly path = '/prompts';
  readonly versions = new PromptVersionsResource(this.http);
  readonly labels = new PromptLabelsResource(this.http);
  /** Every label move, newest first. */
  labelHistory(prompt: string, options: ListOptions = {}): Paginated<LabelEvent> {
    return this.paginate<LabelEvent>(`/prompts/${seg(prompt)}/label-history`, {}, options);
  }
  /** Renders the latest version, or `version` or `label`, with `variables` (a missing one is a 400 naming it). */
  render(prompt: string, body: RenderInput, options: CallOptions = {}): Promise<RenderResult> {
    return this.send('POST', `/prompts/${seg(prompt)}/render`, body, options, true);
  }
}
