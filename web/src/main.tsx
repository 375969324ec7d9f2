import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, preloadPage } from './app.js';
import './styles.css';
import { startTheme } from './theme.js';

startTheme();
preloadPage(window.location.pathname);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
