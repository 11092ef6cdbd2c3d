// The entry script of pages with <one-setup-header> placeholders (Setup Home, Object Manager).
import '@lwc/synthetic-shadow';
import 'lightning/iconSvgTemplatesStandard'; // the Setup icon, rendered at once
import SetupHeader from 'one/setupHeader';
import { mountEach } from 'one/mount';

mountEach('one-setup-header', SetupHeader);
